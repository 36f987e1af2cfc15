#include "plugin/descriptor_check.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/abi_strings.hpp"
#include "plugin/descriptor_view.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cstddef>
#include <set>
#include <vector>

namespace skillhost::plugin {
namespace {

// The size of skillhost_plugin in ABI 1.0. Later minors may append members; this never changes.
constexpr std::size_t plugin_layout_1_0 = offsetof(skillhost_plugin, shutdown) + sizeof(skillhost_plugin::shutdown);

// A descriptor claiming more skills than this is reading garbage memory, not a real table.
constexpr std::uint32_t max_skill_count = 100000;

std::string quoted_list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += ", ";
        out += "'" + item + "'";
    }
    return out;
}

boost::json::array to_json(const std::vector<std::string>& items) {
    boost::json::array out;
    for (const auto& item : items) out.emplace_back(item);
    return out;
}

std::string manifest_abi_text(const manifest::AbiVersion& abi) {
    return std::to_string(abi.major) + "." + std::to_string(abi.minor);
}

Status check_skills(const skillhost_plugin& plugin, const manifest::Manifest& manifest) {
    const std::string& name = manifest.name;
    if (plugin.skill_count > max_skill_count || (plugin.skill_count > 0 && plugin.skills == nullptr)) {
        Error error{errors::kInvalidDescriptor, "plugin '" + name + "' has a malformed skill table (skill_count " +
                                                    std::to_string(plugin.skill_count) +
                                                    (plugin.skills ? "" : ", skills is NULL") +
                                                    "); point `skills` at an array of `skill_count` entries"};
        error.details["skill_count"] = plugin.skill_count;
        return error;
    }

    const std::size_t stride = skill_stride(plugin);
    if (stride < skill_layout_1_0 || stride > max_skill_stride) {
        Error error{errors::kInvalidDescriptor,
                    "plugin '" + name + "' declares skill_struct_size " + std::to_string(stride) + ", outside " +
                        std::to_string(skill_layout_1_0) + ".." + std::to_string(max_skill_stride) +
                        "; set it to sizeof(skillhost_skill)"};
        error.details["skill_struct_size"] = stride;
        return error;
    }

    std::set<std::string> library_ids;
    for (std::uint32_t i = 0; i < plugin.skill_count; ++i) {
        const skillhost_skill& skill = skill_at(plugin, i);
        if (skill.id == nullptr) {
            Error error{errors::kInvalidDescriptor, "plugin '" + name + "' has a skill with a NULL id at index " +
                                                        std::to_string(i) + "; give every skill its manifest id"};
            error.details["index"] = i;
            return error;
        }
        const std::string id(skill.id);
        if (!library_ids.insert(id).second) {
            Error error{errors::kDuplicateSkillId, "plugin '" + name + "' lists skill '" + id +
                                                       "' more than once in its library; list each skill once"};
            error.details["skill"] = id;
            return error;
        }
        if (skill.invoke == nullptr) {
            Error error{errors::kInvokeMissing, "plugin '" + name + "' lists skill '" + id +
                                                    "' with a NULL invoke function; give it the function that runs it"};
            error.details["skill"] = id;
            return error;
        }
    }

    std::set<std::string> manifest_ids;
    for (const auto& spec : manifest.skills) manifest_ids.insert(spec.id);
    std::vector<std::string> missing, extra;
    std::set_difference(manifest_ids.begin(), manifest_ids.end(), library_ids.begin(), library_ids.end(),
                        std::back_inserter(missing));
    std::set_difference(library_ids.begin(), library_ids.end(), manifest_ids.begin(), manifest_ids.end(),
                        std::back_inserter(extra));
    if (missing.empty() && extra.empty()) return {};

    std::string message = "plugin '" + name + "' does not implement exactly the skills its manifest lists:";
    if (!missing.empty())
        message += " the manifest lists " + quoted_list(missing) + " but the library does not implement " +
                   (missing.size() == 1 ? "it" : "them") + (extra.empty() ? "" : ";");
    if (!extra.empty())
        message += " the library implements " + quoted_list(extra) + " but the manifest does not list " +
                   (extra.size() == 1 ? "it" : "them");
    message += "; make the manifest's `skills` and the library's skill table name the same skills";
    Error error{errors::kSkillsMismatch, std::move(message)};
    error.details["missing"] = to_json(missing);
    error.details["extra"] = to_json(extra);
    return error;
}

}  // namespace

std::string to_string(const skillhost_version& version) {
    return std::to_string(version.major) + "." + std::to_string(version.minor) + "." + std::to_string(version.patch);
}

bool host_accepts(const skillhost_version& plugin_version) {
    return plugin_version.major == host_abi_version.major && plugin_version.minor <= host_abi_version.minor;
}

Status check_abi_version(const skillhost_version& plugin_version, std::string_view plugin_name) {
    if (host_accepts(plugin_version)) return {};
    const std::string plugin_text = to_string(plugin_version);
    const std::string host_text = to_string(host_abi_version);
    std::string remedy;
    if (plugin_version.major != host_abi_version.major) {
        remedy = "rebuild it against SkillhostSDK " + std::to_string(host_abi_version.major) + ".x";
    } else {
        remedy = "rebuild it against SkillhostSDK " + std::to_string(host_abi_version.major) + "." +
                 std::to_string(host_abi_version.minor) + " (or an older " + std::to_string(host_abi_version.major) +
                 ".x), or upgrade the host to one implementing " + std::to_string(plugin_version.major) + "." +
                 std::to_string(plugin_version.minor);
    }
    Error error{errors::kAbiIncompatible, "plugin '" + std::string(plugin_name) + "' was built for skill ABI " +
                                              plugin_text + " but this host implements " + host_text + ": " + remedy};
    error.details["plugin_abi"] = plugin_text;
    error.details["host_abi"] = host_text;
    error.suggestions.push_back(remedy);
    return error;
}

Status check_descriptor(const skillhost_plugin& plugin, const manifest::Manifest& manifest) {
    if (plugin.struct_size < plugin_layout_1_0) {
        Error error{errors::kStructTooSmall,
                    "plugin '" + manifest.name + "' declares a descriptor of " + std::to_string(plugin.struct_size) +
                        " bytes, smaller than the " + std::to_string(plugin_layout_1_0) +
                        "-byte skill ABI 1.0 layout; set struct_size to sizeof(skillhost_plugin)"};
        error.details["struct_size"] = plugin.struct_size;
        error.details["minimum_size"] = plugin_layout_1_0;
        return error;
    }

    // The manifest states the oldest ABI the plugin needs, so a host can refuse it before loading the
    // library. A library built against a newer minor of the same major still honours it.
    if (manifest.abi.major != plugin.abi_version.major || manifest.abi.minor > plugin.abi_version.minor) {
        const std::string library_abi = to_string(plugin.abi_version);
        Error error{errors::kAbiMismatch,
                    "plugin '" + manifest.name + "': its manifest declares abi_version " +
                        manifest_abi_text(manifest.abi) + " but its library was built for " + library_abi +
                        "; set abi_version: \"" + std::to_string(plugin.abi_version.major) + "." +
                        std::to_string(plugin.abi_version.minor) + "\" in the manifest (or rebuild the library)"};
        error.details["manifest_abi"] = manifest_abi_text(manifest.abi);
        error.details["library_abi"] = library_abi;
        return error;
    }

    const std::string_view library_name = from_abi(plugin.name);
    if (library_name != manifest.name) {
        Error error{errors::kNameMismatch, "the manifest names the plugin '" + manifest.name +
                                               "' but its library calls itself '" + std::string(library_name) +
                                               "'; use the same name in the manifest's `name` and the library"};
        error.details["manifest_name"] = manifest.name;
        error.details["library_name"] = std::string(library_name);
        return error;
    }

    if (Status skills = check_skills(plugin, manifest); !skills) return skills;

    // The version is written once, in the manifest; skillhost_add_plugin() compiles it in as
    // SKILLHOST_PLUGIN_VERSION. A library that says otherwise was built from another manifest (or
    // spells the version by hand), and `skills list`, `watch` and the audit log would disagree.
    const std::string_view library_version = from_abi(plugin.version);
    if (library_version != manifest.version) {
        Error error{errors::kVersionMismatch,
                    "plugin '" + manifest.name + "': its manifest " + manifest.file.filename().string() +
                        " says version " + manifest.version + " but its library reports " +
                        std::string(library_version) +
                        "; write the version only in the manifest and use SKILLHOST_PLUGIN_VERSION (compiled in "
                        "by skillhost_add_plugin()) in the plugin descriptor, then rebuild; or install the "
                        "manifest that was built with this library"};
        error.details["manifest_version"] = manifest.version;
        error.details["library_version"] = std::string(library_version);
        error.details["manifest"] = manifest.file.string();
        return error;
    }
    return {};
}

}  // namespace skillhost::plugin
