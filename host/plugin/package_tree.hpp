// What an installed package is, file by file, so that a later change to it is noticed before it
// runs: every regular file's relative path, permission bits and SHA-256, every symbolic link's
// target, sorted by path, and one digest over all of it. The record of an install
// (kPackageRecordFile, at the install's root and not part of the tree) keeps them with the package
// it was made from (npm name, version, integrity).
#pragma once

#include "base/error.hpp"
#include "base/error_kind.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::plugin {

inline constexpr std::string_view kPackageRecordFile = "skillhost-package.json";

struct PackageFile {
    std::string path;    // relative to the tree's root, '/'-separated
    unsigned mode = 0;   // permission bits (07777) of a regular file; 0 for a link
    std::string sha256;  // of a regular file's content (hex)
    std::string link;    // a symbolic link's target, as written; empty for a regular file
    bool operator==(const PackageFile&) const = default;
};

struct PackageTree {
    std::vector<PackageFile> files;  // sorted by path
    std::string digest;              // "sha256-<hex>" of the listing (tree_digest)
};

// Reads the tree under `root` (the record file at its root left out). A link that resolves outside
// `root`, or anything but a directory, a regular file or a link, is refused with `code`, naming it:
// what runs from the tree must be what the tree holds.
Result<PackageTree> read_package_tree(const std::filesystem::path& root, ErrorCode code);

// The digest of a listing: each entry's path, mode and hash (or link target), in order.
std::string tree_digest(const std::vector<PackageFile>& files);

// Where `now` first differs from `recorded` (both sorted): the path, and what differs.
struct TreeDifference {
    std::string path;
    std::string what;  // "changed", "mode changed", "removed", "added", "link changed", ...
};
std::optional<TreeDifference> first_difference(const std::vector<PackageFile>& recorded,
                                               const std::vector<PackageFile>& now);

// "sha512-<base64>" of a file's content, as npm writes a tarball's integrity.
Result<std::string> file_integrity_sha512(const std::filesystem::path& file, ErrorCode code);

// The record of an install.
struct PackageRecord {
    std::string npm, version, integrity;
    PackageTree tree;
};
boost::json::object package_record_json(const PackageRecord& record);
// nullopt (with `problem`) when the text is not a record this version wrote.
std::optional<PackageRecord> parse_package_record(std::string_view text, std::string& problem);

}  // namespace skillhost::plugin
