// Every YAML text skillhost reads goes through here: yaml-cpp with base/yaml_root_guard in front, so
// no file (a plugin's manifest or an operator's typo in skillhost.yaml) can make the parser allocate
// until the process dies. The guard's refusal is thrown as the parser's own error type, with a
// position, so each reader reports it exactly like any other syntax error.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace skillhost {

// The text as one YAML document. Throws YAML::ParserException (with a mark) on a syntax error.
YAML::Node load_guarded_yaml(std::string_view text);

// The file as one YAML document. Throws YAML::BadFile when it cannot be read (or is larger than
// and YAML::ParserException on a syntax error or a file larger than kMaxYamlFileBytes.
YAML::Node load_guarded_yaml_file(const std::filesystem::path& file);

// Configuration and manifests are small; a larger file is a mistake, not something to parse.
inline constexpr std::uintmax_t kMaxYamlFileBytes = 16u * 1024u * 1024u;

}  // namespace skillhost
