// What identifies one version of a file on disk, so a reload can tell "replaced" from "unchanged"
// without reading the file: an installer's rename gives a new inode, a compiler's rewrite a new
// mtime/size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace skillhost::reload {

struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t size = 0;

    bool operator==(const FileIdentity&) const = default;
};

// stat() of `file` (following symlinks, as dlopen and the loader do); nullopt when it is missing
// or unreadable.
std::optional<FileIdentity> identify_file(const std::filesystem::path& file);

// FNV-1a 64: a stable hash of a manifest's bytes (an edit that restores the old bytes is no change).
std::uint64_t content_hash(std::string_view bytes);

}  // namespace skillhost::reload
