#include "plugin/private_copy.hpp"
#include "plugin/error_codes.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <system_error>

namespace skillhost::plugin {
namespace {

// Plugin names come from manifests; keep only characters that are safe in any file name.
std::string file_name_part(std::string_view name) {
    std::string out;
    for (char c : name) {
        const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                          c == '-' || c == '.';
        out.push_back(safe ? c : '_');
    }
    return out.empty() ? std::string("plugin") : out;
}

// Process-wide on purpose: several loaders may share one cache directory.
std::uint64_t next_copy_number() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

Error copy_failed(const std::filesystem::path& library, const std::filesystem::path& target, std::string what) {
    Error error{errors::kPrivateCopyFailed,
                "cannot make a private copy of " + library.string() + " in " + target.parent_path().string() + ": " +
                    what + "; make the plugin cache directory writable (or point the cache to another directory)"};
    error.details["copy"] = target.string();
    return error;
}

}  // namespace

Result<std::filesystem::path> make_private_copy(const std::filesystem::path& library,
                                                const std::filesystem::path& cache_dir, std::string_view plugin_name) {
    std::error_code ec;
    std::filesystem::create_directories(cache_dir, ec);
    if (ec) return copy_failed(library, cache_dir / "x", "cannot create the directory (" + ec.message() + ")");

    const std::string stem = file_name_part(plugin_name) + "-" + std::to_string(::getpid()) + "-";
    // A stale file from an earlier process with the same pid is possible; never overwrite it, as
    // it might still be mapped by that process: take the next number instead.
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::filesystem::path target =
            cache_dir / (stem + std::to_string(next_copy_number()) + library.extension().string());
        ec.clear();
        if (std::filesystem::copy_file(library, target, std::filesystem::copy_options::none, ec)) return target;
        if (ec != std::errc::file_exists) return copy_failed(library, target, ec.message());
    }
    return copy_failed(library, cache_dir / stem, "every candidate file name is already taken");
}

}  // namespace skillhost::plugin
