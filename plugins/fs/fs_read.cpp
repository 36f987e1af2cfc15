#include "fs_skills.hpp"
#include "text_content.hpp"
#include "workspace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace skillhost_builtin::fs {

using skillhost::Json;
using skillhost::SkillError;

namespace {

// Finding a line range means reading from the start; past this many bytes we stop and say so.
constexpr std::size_t kLineScanLimit = 16u << 20;

// Reads up to `limit` bytes (fewer at end of file).
std::string read_up_to(int fd, std::size_t limit, const PathContext& ctx, const std::string& relative) {
    std::string data;
    data.resize(limit);
    std::size_t got = 0;
    while (got < limit) {
        ssize_t n = ::read(fd, data.data() + got, limit - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_errno(ctx, errno, "reading", relative);
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    data.resize(got);
    return data;
}

}  // namespace

Json fs_read(const skillhost::Call& call, const Json& args) {
    Workspace workspace(call);
    ResolvedPath path = workspace.resolve(args["path"].as_string());
    const PathContext& ctx = path.context;
    if (!path.exists) throw_not_found(ctx, path.relative_prefix(path.existing + 1));
    if (path.is_directory()) throw_is_directory(ctx, "use fs_list to see what it contains");

    // O_NONBLOCK: opening a FIFO must not hang the call; regular files ignore it.
    UniqueFd fd = workspace.open_file(path, O_RDONLY | O_NONBLOCK);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw_errno(ctx, errno, "inspecting", path.relative());
    if (S_ISDIR(st.st_mode)) throw_is_directory(ctx, "use fs_list to see what it contains");
    if (!S_ISREG(st.st_mode))
        throw SkillError("NOT_A_REGULAR_FILE",
                         "path '" + ctx.requested + "' in the workspace root '" + ctx.root +
                             "' is a device, socket or pipe, not a regular file; only regular files can be read",
                         Json::object({{"path", ctx.requested}, {"root", ctx.root}}));

    const auto max_bytes = static_cast<std::size_t>(args.int_or("max_bytes", 65536));
    const std::int64_t start_line = args.int_or("start_line", 0);
    const std::int64_t end_line = args.int_or("end_line", 0);
    const auto size = static_cast<std::int64_t>(st.st_size);

    Json out = Json::object({{"path", path.relative()}, {"size", size}, {"mtime", modification_time(st)}});

    if (start_line == 0 && end_line == 0) {
        std::string data = read_up_to(fd.get(), max_bytes + 1, ctx, path.relative());
        bool truncated = data.size() > max_bytes;
        if (truncated) data.resize(max_bytes);
        if (!looks_like_text(data, truncated)) {
            out["content"] = base64_encode(data);
            out["encoding"] = "base64";
            out["truncated"] = truncated;
            out["bytes_returned"] = static_cast<std::int64_t>(data.size());
            out["note"] = "binary file (not UTF-8 text): content is the base64 encoding of the first " +
                          std::to_string(data.size()) + " of " + std::to_string(size) + " bytes";
            return out;
        }
        if (truncated) data.resize(check_utf8(data).valid_prefix);  // never end inside a character
        out["content"] = data;
        out["encoding"] = "utf-8";
        out["truncated"] = truncated;
        out["bytes_returned"] = static_cast<std::int64_t>(data.size());
        if (truncated)
            out["note"] = "showing the first " + std::to_string(data.size()) + " of " + std::to_string(size) +
                          " bytes; pass a larger max_bytes or a start_line/end_line range to read further";
        return out;
    }

    // Line range: 1-based, inclusive; a missing end means "to the end of the file".
    const std::int64_t first = start_line > 0 ? start_line : 1;
    const std::int64_t last = end_line > 0 ? end_line : INT64_MAX;
    if (last < first)
        throw SkillError("INVALID_LINE_RANGE",
                         "end_line " + std::to_string(last) + " comes before start_line " + std::to_string(first) +
                             "; pass end_line >= start_line",
                         Json::object({{"start_line", first}, {"end_line", last}}));
    std::string content;
    std::int64_t line = 1;
    std::size_t scanned = 0;
    bool truncated = false, binary = false;
    std::string chunk;
    while (!truncated && line <= last) {
        chunk = read_up_to(fd.get(), 64 * 1024, ctx, path.relative());
        if (chunk.empty()) break;
        if (chunk.find('\0') != std::string::npos) {
            binary = true;
            break;
        }
        scanned += chunk.size();
        for (char c : chunk) {
            if (line >= first && line <= last) {
                if (content.size() >= max_bytes) {
                    truncated = true;
                    break;
                }
                content += c;
            }
            if (c == '\n' && ++line > last) break;
        }
        if (line < first && scanned >= kLineScanLimit)
            throw SkillError("TOO_LARGE",
                             "line " + std::to_string(first) + " of '" + ctx.requested + "' (workspace root '" +
                                 ctx.root + "') lies beyond the first " + std::to_string(kLineScanLimit >> 20) +
                                 " MiB, which is as far as fs_read scans for lines; read a smaller file, or search "
                                 "it with fs_search",
                             Json::object({{"path", ctx.requested},
                                           {"root", ctx.root},
                                           {"size", size},
                                           {"scan_limit_bytes", static_cast<std::int64_t>(kLineScanLimit)}}));
    }
    if (binary || !looks_like_text(content, truncated)) {
        throw SkillError("NOT_TEXT",
                         "'" + ctx.requested + "' in the workspace root '" + ctx.root +
                             "' is a binary file, so it has no lines; read it without start_line/end_line to get "
                             "its bytes as base64",
                         Json::object({{"path", ctx.requested}, {"root", ctx.root}}));
    }
    if (truncated) content.resize(check_utf8(content).valid_prefix);
    std::int64_t last_returned = first - 1;
    if (!content.empty()) {
        auto newlines = static_cast<std::int64_t>(std::count(content.begin(), content.end(), '\n'));
        last_returned = first + newlines - (content.back() == '\n' ? 1 : 0);
    }
    out["content"] = content;
    out["encoding"] = "utf-8";
    out["truncated"] = truncated;
    out["bytes_returned"] = static_cast<std::int64_t>(content.size());
    out["start_line"] = first;
    out["end_line"] = last_returned;
    if (content.empty())
        out["note"] = "the file ends before line " + std::to_string(first) + "; nothing to return";
    else if (truncated)
        out["note"] = "the range was cut at max_bytes=" + std::to_string(max_bytes) +
                      "; ask for fewer lines or a larger max_bytes";
    return out;
}

}  // namespace skillhost_builtin::fs
