#include "directory_walk.hpp"
#include "fs_skills.hpp"
#include "path_guard.hpp"
#include "text_content.hpp"
#include "workspace.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

namespace skillhost_builtin::fs {

using skillhost::Json;
using skillhost::SkillError;

namespace {

constexpr std::size_t kMaxMatchesPerFile = 5;
constexpr std::size_t kMaxLineBytes = 200;

std::string ascii_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Reads at most `limit` bytes of a regular file below `parent_fd` without following links.
std::optional<std::string> read_file_prefix(int parent_fd, const std::string& name, std::size_t limit) {
    UniqueFd fd(::openat(parent_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) return std::nullopt;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    std::string data(std::min<std::size_t>(limit, static_cast<std::size_t>(st.st_size)), '\0');
    std::size_t got = 0;
    while (got < data.size()) {
        ssize_t n = ::read(fd.get(), data.data() + got, data.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    data.resize(got);
    return data;
}

}  // namespace

Json fs_search(const skillhost::Call& call, const Json& args) {
    const std::string name_pattern = args.string_or("name", "");
    const std::string text = args.string_or("text", "");
    if (name_pattern.empty() && text.empty())
        throw SkillError(
            "NO_SEARCH_CRITERIA",
            "fs_search needs a file name pattern (name, e.g. \"*.md\") or text to look for (text), or both",
            Json::object());
    Workspace workspace(call);
    ResolvedPath path = workspace.resolve(args.string_or("path", "."));
    if (!path.exists) throw_not_found(path.context, path.relative_prefix(path.existing + 1));
    if (!path.is_directory()) throw_not_directory(path.context, path.relative());

    const bool case_sensitive = args.bool_or("case_sensitive", false);
    const auto max_results = static_cast<std::size_t>(args.int_or("max_results", 50));
    const auto byte_budget = static_cast<std::size_t>(args.int_or("max_bytes_scanned", 8 << 20));
    const std::string needle = case_sensitive ? text : ascii_lower(text);
    WalkOptions options;
    options.recursive = true;
    options.include_hidden = args.bool_or("include_hidden", false);
    PathGuard guard(call, SKILLHOST_PATH_SEARCH);
    options.admit = [&guard](const WalkEntry& e) { return guard.allows(e.relative_path); };

    Json results = Json::array();
    std::size_t bytes_scanned = 0, files_scanned = 0;
    bool truncated = false, budget_exhausted = false;
    UniqueFd dir = workspace.open_directory(path);
    walk_directory(dir.get(), path.relative(), options, [&](const WalkEntry& e) {
        if (call.cancelled()) throw skillhost::Cancelled{};
        if (!name_pattern.empty()) {
            const char* subject =
                name_pattern.find('/') != std::string::npos ? e.relative_path.c_str() : e.name.c_str();
            if (::fnmatch(name_pattern.c_str(), subject, 0) != 0) return WalkControl::next;
        }
        Json matches = Json::array();
        if (!text.empty()) {
            if (!S_ISREG(e.st.st_mode)) return WalkControl::next;
            std::size_t remaining = byte_budget - bytes_scanned;
            if (remaining == 0) {
                budget_exhausted = true;
                return WalkControl::stop;
            }
            auto data = read_file_prefix(e.parent_fd, e.name, remaining);
            if (!data) return WalkControl::next;
            bytes_scanned += data->size();
            ++files_scanned;
            if (data->size() < static_cast<std::size_t>(e.st.st_size)) budget_exhausted = true;
            if (data->find('\0') != std::string::npos) return WalkControl::next;  // binary: no text lines
            const std::string haystack = case_sensitive ? *data : ascii_lower(*data);
            std::size_t line_start = 0;
            std::int64_t line_number = 1;
            std::size_t counted_to = 0;
            for (std::size_t hit = haystack.find(needle); hit != std::string::npos;
                 hit = haystack.find(needle, line_start)) {
                line_number += std::count(haystack.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                          haystack.begin() + static_cast<std::ptrdiff_t>(hit), '\n');
                line_start = data->rfind('\n', hit);
                line_start = line_start == std::string::npos ? 0 : line_start + 1;
                std::size_t line_end = data->find('\n', hit);
                if (line_end == std::string::npos) line_end = data->size();
                counted_to = hit;
                std::string line = sanitize_utf8(std::string_view(*data).substr(line_start, line_end - line_start));
                matches.push_back(
                    Json::object({{"line", line_number}, {"text", std::string(utf8_prefix(line, kMaxLineBytes))}}));
                if (matches.size() >= kMaxMatchesPerFile || line_end >= data->size()) break;
                line_start = line_end + 1;
            }
            if (matches.size() == 0) return budget_exhausted ? WalkControl::stop : WalkControl::next;
        }
        if (results.size() >= max_results) {
            truncated = true;
            return WalkControl::stop;
        }
        Json item = Json::object({{"path", e.relative_path},
                                  {"type", file_type_name(e.st)},
                                  {"size", static_cast<std::int64_t>(e.st.st_size)},
                                  {"mtime", modification_time(e.st)}});
        if (!text.empty()) item["matches"] = std::move(matches);
        results.push_back(std::move(item));
        return budget_exhausted ? WalkControl::stop : WalkControl::next;
    });
    const auto count = static_cast<std::int64_t>(results.size());
    Json out = Json::object({{"path", path.relative()},
                             {"results", std::move(results)},
                             {"count", count},
                             {"truncated", truncated},
                             {"files_scanned", static_cast<std::int64_t>(files_scanned)},
                             {"bytes_scanned", static_cast<std::int64_t>(bytes_scanned)},
                             {"scan_limit_reached", budget_exhausted}});
    guard.describe(out);
    if (truncated)
        out["note"] = "stopped at max_results; narrow the search or raise max_results";
    else if (budget_exhausted)
        out["note"] = "stopped after scanning max_bytes_scanned bytes; search a smaller directory or raise the limit";
    return out;
}

}  // namespace skillhost_builtin::fs
