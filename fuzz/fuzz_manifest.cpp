// libFuzzer target: a plugin manifest (YAML) as an administrator or a plugin author writes it.
// Every input must end in a manifest or an Error, never a crash, a hang or unbounded memory.
#include "manifest/manifest.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto manifest = skillhost::manifest::parse_manifest(text, "fuzz.yaml");
    if (!manifest) {
        // The error's text is what a user reads: building it must be safe too.
        (void)manifest.error().to_json();
    }
    return 0;
}
