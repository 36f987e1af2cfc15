// A text check run before yaml-cpp sees untrusted YAML. yaml-cpp 0.7 (Debian 12) never returns on
// some lines that start with ',' outside a flow collection (a document's first node, also after '---',
// a tag or an anchor; a dedented line): it allocates until the process runs out of memory. Found by
// fuzzing the manifest reader. Such a line is never valid YAML, so this refuses every one of them, and
// a document that is a block scalar, in linear time, with a position, before the parser sees them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost {

struct YamlRootProblem {
    std::size_t line = 0;    // 1-based
    std::size_t column = 0;  // 1-based
    std::string message;
};

std::optional<YamlRootProblem> find_unsafe_yaml_root(std::string_view text);

}  // namespace skillhost
