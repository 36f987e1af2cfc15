#include "base/guarded_yaml.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "base/yaml_root_guard.hpp"

namespace skillhost {

YAML::Node load_guarded_yaml(std::string_view text) {
    if (auto unsafe = find_unsafe_yaml_root(text)) {
        YAML::Mark at;
        at.line = static_cast<int>(unsafe->line) - 1;
        at.column = static_cast<int>(unsafe->column) - 1;
        throw YAML::ParserException(at, unsafe->message);
    }
    return YAML::Load(std::string(text));
}

YAML::Node load_guarded_yaml_file(const std::filesystem::path& file) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) throw YAML::BadFile(file.string());
    if (size > kMaxYamlFileBytes) {
        throw YAML::ParserException(YAML::Mark::null_mark(),
                                    "the file has " + std::to_string(size) + " bytes, more than the " +
                                        std::to_string(kMaxYamlFileBytes >> 20) + " MiB a YAML file may have");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) throw YAML::BadFile(file.string());
    std::ostringstream text;
    text << in.rdbuf();
    return load_guarded_yaml(text.str());
}

}  // namespace skillhost
