// The fs plugin's resources ("skillhost.resources/1"): the files of the user's workspace as
// file:// URIs. Listing goes through fs_list (so the user's path rules withhold entries as they do
// for the skill) and reading through fs_read, after the same per-path check a listed entry gets:
// the host checks no argument here, so the plugin asks for the requested path and for the one it
// resolves to.
#include "fs_resources.hpp"

#include "fs_skills.hpp"
#include "workspace.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <string>

namespace skillhost_builtin::fs {

using skillhost::Json;
using skillhost::SkillError;

namespace {

constexpr std::string_view kPrefix = "file://";
// The most files listed, and the largest file read (base64 keeps it under the host's 8 MiB).
constexpr std::int64_t kMaxListed = 500;
constexpr std::int64_t kMaxReadBytes = std::int64_t{4} << 20;

bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~' || c == '/';
}

std::string percent_encode(std::string_view path) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : path) {
        if (unreserved(c)) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        }
    }
    return out;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

[[noreturn]] void not_found(std::string_view uri, const std::string& why) {
    throw SkillError("RESOURCE_NOT_FOUND", "no workspace file '" + std::string(uri) + "': " + why,
                     Json::object({{"uri", std::string(uri)}}));
}

// The absolute path a file:// URI names (no host part, percent-decoded).
std::string decode_file_uri(std::string_view uri) {
    std::string_view rest = uri.substr(kPrefix.size());
    if (rest.empty() || rest.front() != '/') not_found(uri, "only file:///absolute/path URIs name workspace files");
    std::string out;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] != '%') {
            out += rest[i];
            continue;
        }
        const bool complete = i + 2 < rest.size();
        const int hi = complete ? hex_value(rest[i + 1]) : -1;
        const int lo = complete ? hex_value(rest[i + 2]) : -1;
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) not_found(uri, "it has an invalid percent escape");
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

std::string mime_type_of(std::string_view path, bool text) {
    const auto dot = path.rfind('.');
    const std::string_view ext = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (ext == "md") return "text/markdown";
    if (ext == "json") return "application/json";
    if (ext == "yaml" || ext == "yml") return "application/yaml";
    if (ext == "html" || ext == "htm") return "text/html";
    if (ext == "csv") return "text/csv";
    if (ext == "png") return "image/png";
    if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
    if (ext == "gif") return "image/gif";
    if (ext == "pdf") return "application/pdf";
    return text ? "text/plain" : "application/octet-stream";
}

std::string uri_of(const std::string& root, const std::string& relative) {
    std::string absolute = root;
    if (absolute.empty() || absolute.back() != '/') absolute += '/';
    absolute += relative;
    return std::string(kPrefix) + percent_encode(absolute);
}

}  // namespace

Json list_workspace_files(const skillhost::Call& call) {
    Json resources = Json::array();
    // A user without a workspace yet (it is made at their first call) has no files to list.
    struct stat st {};
    const std::string root_dir(call.workspace_root());
    if (root_dir.empty() || ::stat(root_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Json::object({{"resources", resources}});
    const Json listing = fs_list(call, Json::object({{"path", "."}, {"recursive", true}, {"max_entries", kMaxListed}}));
    const std::string root = listing["root"].as_string();
    for (const Json& entry : listing["entries"].as_array()) {
        if (entry["type"].as_string() != "file") continue;
        const std::string& relative = entry["path"].as_string();
        resources.push_back(Json::object({{"uri", uri_of(root, relative)},
                                          {"name", relative},
                                          {"mimeType", mime_type_of(relative, true)},
                                          {"size", entry["size"]}}));
    }
    return Json::object({{"resources", resources}});
}

Json read_workspace_file(const skillhost::Call& call, std::string_view uri) {
    if (uri.substr(0, kPrefix.size()) != kPrefix) not_found(uri, "it is not a file:// URI");
    const std::string requested = decode_file_uri(uri);
    Workspace workspace(call);
    const ResolvedPath path = workspace.resolve(requested);
    if (!call.path_allowed(requested, SKILLHOST_PATH_READ) || !call.path_allowed(path.relative(), SKILLHOST_PATH_READ))
        throw SkillError("PATH_NOT_ALLOWED",
                         "the user's path rules withhold '" + requested + "'; it cannot be read as a resource",
                         Json::object({{"uri", std::string(uri)}}));
    if (!path.exists || path.is_directory()) not_found(uri, "it is not an existing file of the workspace");
    const Json file = fs_read(call, Json::object({{"path", path.relative()}, {"max_bytes", kMaxReadBytes}}));
    if (file.bool_or("truncated", false))
        throw SkillError("RESOURCE_TOO_LARGE",
                         "'" + requested + "' is larger than " + std::to_string(kMaxReadBytes) +
                             " bytes; read it in parts with fs_read (start_line, end_line or max_bytes)",
                         Json::object({{"uri", std::string(uri)}, {"size", file["size"]}}));
    const bool binary = file.string_or("encoding", "") == "base64";
    Json content = Json::object({{"uri", std::string(uri)}, {"mimeType", mime_type_of(requested, !binary)}});
    content[binary ? "blob" : "text"] = file["content"];
    return Json::object({{"contents", Json::array({content})}});
}

}  // namespace skillhost_builtin::fs
