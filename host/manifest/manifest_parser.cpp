#include "manifest/manifest.hpp"
#include "manifest/error_codes.hpp"

#include "base/yaml_root_guard.hpp"
#include "manifest/identifier_text.hpp"
#include "manifest/manifest_document.hpp"
#include "manifest/skill_reader.hpp"
#include "manifest/yaml_field.hpp"

#include <boost/json/array.hpp>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/node/parse.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace skillhost::manifest {

const SkillSpec* Manifest::skill(std::string_view id) const {
    for (const auto& spec : skills) {
        if (spec.id == id) return &spec;
    }
    return nullptr;
}

std::string_view to_string(Permissions::Workspace workspace) {
    switch (workspace) {
        case Permissions::Workspace::read: return "read";
        case Permissions::Workspace::read_write: return "read_write";
        default: return "none";
    }
}

std::string_view to_string(PluginState state) {
    switch (state) {
        case PluginState::host_storage: return "host_storage";
        case PluginState::none: return "none";
        default: return "files";
    }
}

std::string ManifestProblem::to_string() const {
    std::string out = file;
    if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
    out += ": ";
    if (!field.empty()) out += field + ": ";
    return out + message;
}

namespace {

using namespace detail;

constexpr std::array<std::string_view, 8> kManifestKeys = {"name",        "version", "description", "library",
                                                           "abi_version", "skills",  "permissions", "state"};
constexpr std::array<std::string_view, 3> kStateChoices = {"files", "host_storage", "none"};
constexpr std::array<std::string_view, 3> kPermissionKeys = {"workspace", "network", "llm"};
constexpr std::array<std::string_view, 3> kWorkspaceAccess = {"none", "read", "read_write"};
constexpr const char* kReferenceHint = "see docs/manifest-reference.md";

void read_name(const FieldMap& map, Manifest& manifest, ProblemList& problems) {
    const Field* name = required_field(map, "name", "give the plugin name its library declares", problems);
    if (name == nullptr) return;
    auto text = read_string(*name, problems);
    if (!text) return;
    if (!is_plugin_name(*text)) {
        problems.add(*name, "invalid plugin name \"" + *text +
                                "\"; expected a lowercase letter followed by lowercase letters, digits, _ or - "
                                "(pattern ^[a-z][a-z0-9_-]*$)");
        return;
    }
    manifest.name = std::move(*text);
}

void read_abi_version(const FieldMap& map, Manifest& manifest, ProblemList& problems) {
    const Field* field =
        required_field(map, "abi_version", "give the SDK ABI version as \"major.minor\", e.g. \"1.0\"", problems);
    if (field == nullptr) return;
    // The scalar's text is used as written, so an unquoted 1.0 reads as "1.0" (and 1.10 as "1.10").
    const std::string text = field->value.IsScalar() ? field->value.Scalar() : std::string();
    const auto version = parse_major_minor(text);
    if (!field->value.IsScalar() || !version) {
        problems.add(*field, "expected \"major.minor\" such as \"1.0\", got " + describe(field->value));
        return;
    }
    manifest.abi.major = version->major;
    manifest.abi.minor = version->minor;
}

void read_skills(const FieldMap& map, Manifest& manifest, ProblemList& problems) {
    const Field* field = required_field(map, "skills", "list the skills the library provides", problems);
    if (field == nullptr) return;
    auto items = read_list(*field, problems);
    if (!items) return;
    if (items->empty()) {
        problems.add(*field, "a plugin must provide at least one skill; list them under skills");
        return;
    }
    read_unique_entries(
        *items, manifest.skills, read_skill, [](const SkillSpec& skill) -> const std::string& { return skill.id; },
        "skill id", "skill ids must be unique in a manifest", problems);
}

void read_permissions_of(const FieldMap& map, Manifest& manifest, ProblemList& problems) {
    if (const Field* field = map.find("permissions")) read_permissions(*field, manifest.permissions, problems);
}

void read_state(const FieldMap& map, Manifest& manifest, ProblemList& problems) {
    const Field* field = map.find("state");
    if (field == nullptr) return;
    if (auto choice = read_choice(*field, KeyList(kStateChoices), problems)) {
        manifest.state = *choice == "host_storage" ? PluginState::host_storage
                         : *choice == "none"       ? PluginState::none
                                                   : PluginState::files;
    }
}

}  // namespace

namespace detail {

const Field* required_field(const FieldMap& map, std::string_view key, std::string_view what, ProblemList& problems) {
    const Field* field = map.find(key);
    if (field == nullptr) {
        const std::string& parent = map.self().path;
        problems.add(map.self().at, parent.empty() ? std::string(key) : parent + "." + std::string(key),
                     "missing required field '" + std::string(key) + "'; " + std::string(what));
    }
    return field;
}

std::optional<std::string> read_checked(const FieldMap& map, std::string_view key, std::string_view what,
                                        const Check& check, ProblemList& problems) {
    const Field* field = required_field(map, key, what, problems);
    if (field == nullptr) return std::nullopt;
    auto text = read_string(*field, problems);
    if (!text) return std::nullopt;
    if (auto complaint = check(*text)) {
        problems.add(*field, std::move(*complaint));
        return std::nullopt;
    }
    return text;
}

// `permissions:` says what the plugin may touch when it runs isolated; the host enforces it in the
// runner's sandbox, and shows it before a user enables the plugin.
void read_permissions(const Field& field, Permissions& permissions, ProblemList& problems) {
    auto entries = FieldMap::read(field, KeyList(kPermissionKeys), problems);
    if (!entries) return;
    permissions.declared = true;
    if (const Field* workspace = entries->find("workspace")) {
        if (auto choice = read_choice(*workspace, KeyList(kWorkspaceAccess), problems)) {
            permissions.workspace = *choice == "read"         ? Permissions::Workspace::read
                                    : *choice == "read_write" ? Permissions::Workspace::read_write
                                                              : Permissions::Workspace::none;
        }
    }
    if (const Field* network = entries->find("network")) {
        if (auto value = read_bool(*network, problems)) permissions.network = *value;
    }
    if (const Field* llm = entries->find("llm")) {
        if (auto value = read_bool(*llm, problems)) permissions.llm = *value;
    }
}

void read_manifest(const Field& root, Manifest& manifest, ProblemList& problems) {
    if (root.value.IsNull() || !root.value.IsDefined()) {
        problems.add(root, "the manifest is empty; expected a mapping with keys " + join(kManifestKeys));
        return;
    }
    auto map = FieldMap::read(root, KeyList(kManifestKeys), problems);
    if (!map) return;
    read_name(*map, manifest, problems);
    if (const Field* version = required_field(*map, "version", "give the plugin's version, e.g. 1.0.0", problems)) {
        if (auto text = read_text(*version, problems)) manifest.version = std::move(*text);
    }
    if (const Field* description = map->find("description")) {
        if (auto text = read_string(*description, problems)) manifest.description = std::move(*text);
    }
    if (const Field* library = required_field(
            *map, "library", "give the library's file name, relative to this manifest's directory", problems)) {
        if (auto text = read_text(*library, problems)) manifest.library = std::move(*text);
    }
    read_abi_version(*map, manifest, problems);
    read_skills(*map, manifest, problems);
    read_permissions_of(*map, manifest, problems);
    read_state(*map, manifest, problems);
}

Error invalid_manifest(const std::vector<ManifestProblem>& problems, const std::filesystem::path& file) {
    Error error;
    error.recode(errors::kManifestInvalid);
    error.message = problems.front().to_string();
    if (problems.size() > 1) error.message += " (and " + std::to_string(problems.size() - 1) + " more)";
    boost::json::array list;
    for (const auto& problem : problems) {
        list.push_back(boost::json::object{{"file", problem.file},
                                           {"line", problem.line},
                                           {"column", problem.column},
                                           {"field", problem.field},
                                           {"message", problem.message}});
    }
    error.details["file"] = file.string();
    error.details["problems"] = std::move(list);
    error.suggestions = {kReferenceHint};
    return error;
}

std::optional<Field> read_document(std::string_view yaml_text, ProblemList& problems) {
    // A manifest comes from a plugin author: refuse what would make yaml-cpp never return.
    if (auto unsafe = find_unsafe_yaml_root(yaml_text)) {
        problems.add(SourcePosition{static_cast<int>(unsafe->line), static_cast<int>(unsafe->column)}, "",
                     "YAML syntax error: " + unsafe->message);
        return std::nullopt;
    }
    try {
        const std::vector<YAML::Node> documents = YAML::LoadAll(std::string(yaml_text));
        const YAML::Node root = documents.empty() ? YAML::Node() : documents.front();
        Field root_field{root, "", position_of(root)};
        if (root_field.at.line == 0) root_field.at = {1, 1};
        if (documents.size() > 1) {
            problems.add(position_of(documents[1]), "",
                         "a manifest holds one YAML document, found " + std::to_string(documents.size()) +
                             "; use one file per plugin and remove the '---' separators");
        }
        return root_field;
    } catch (const YAML::Exception& error) {
        // Syntax errors: yaml-cpp knows where, but not which field.
        const SourcePosition at =
            error.mark.is_null() ? SourcePosition{} : SourcePosition{error.mark.line + 1, error.mark.column + 1};
        problems.add(at, "",
                     "YAML syntax error: " + error.msg +
                         "; check indentation and brackets, and quote text that contains ': ' or "
                         "', ' inside {...} or [...]");
        return std::nullopt;
    }
}

Result<std::string> read_manifest_text(const std::filesystem::path& file) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream(std::fopen(file.c_str(), "rb"), &std::fclose);
    std::string text;
    int failure = stream ? 0 : errno;
    if (stream) {
        std::array<char, 8192> buffer{};
        std::size_t count = 0;
        while ((count = std::fread(buffer.data(), 1, buffer.size(), stream.get())) > 0)
            text.append(buffer.data(), count);
        if (std::ferror(stream.get())) failure = errno != 0 ? errno : EIO;
    }
    if (failure != 0) {
        const std::string reason = std::strerror(failure);
        return Error{
            errors::kManifestUnreadable,
            "cannot read manifest " + file.string() + ": " + reason + "; check that the file exists and is readable",
            boost::json::object{{"file", file.string()}, {"reason", reason}},
            {"check the path and the file's permissions"}};
    }
    return text;
}

}  // namespace detail

Result<Manifest> parse_manifest(std::string_view yaml_text, const std::filesystem::path& file) {
    return parse_document<Manifest>(yaml_text, file, filled_by(read_manifest, file));
}

Result<Manifest> load_manifest(const std::filesystem::path& file) {
    return load_document(file, &parse_manifest);
}

}  // namespace skillhost::manifest
