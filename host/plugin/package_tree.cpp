#include "plugin/package_tree.hpp"

#include "base/sha256.hpp"

#include <boost/json/parse.hpp>
#include <openssl/evp.h>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

namespace skillhost::plugin {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr int kRecordFormat = 1;

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

// The raw digest of a file's content with `algorithm`; nullopt (with `problem`) when it cannot be read.
std::optional<std::string> digest_file(const fs::path& file, const EVP_MD* algorithm, std::string& problem) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        problem = "cannot be read";
        return std::nullopt;
    }
    DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!context || EVP_DigestInit_ex(context.get(), algorithm, nullptr) != 1) throw std::bad_alloc();
    std::array<char, 65536> buffer{};
    while (in) {
        in.read(buffer.data(), buffer.size());
        if (in.gcount() > 0 &&
            EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(in.gcount())) != 1)
            throw std::bad_alloc();
    }
    if (in.bad()) {
        problem = "could not be read to its end";
        return std::nullopt;
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context.get(), digest.data(), &length) != 1) throw std::bad_alloc();
    return std::string(reinterpret_cast<const char*>(digest.data()), length);
}

std::string hex(std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out.push_back(digits[c >> 4]);
        out.push_back(digits[c & 0x0f]);
    }
    return out;
}

std::string base64(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int written =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                        reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(std::max(written, 0)));
    return out;
}

Error tree_error(ErrorCode code, const fs::path& root, const std::string& relative, const std::string& what) {
    Error error{code, "installed package " + root.string() + ": " + relative + " " + what};
    error.details["install_dir"] = root.string();
    error.details["file"] = relative;
    return error;
}

// True when `target` (fully resolved) is `root` or lies below it.
bool inside(const fs::path& target, const fs::path& root) {
    return std::mismatch(root.begin(), root.end(), target.begin(), target.end()).first == root.end();
}

std::string mode_text(unsigned mode) {
    std::array<char, 8> text{};
    std::snprintf(text.data(), text.size(), "%04o", mode);
    return text.data();
}

}  // namespace

Result<PackageTree> read_package_tree(const fs::path& root, ErrorCode code) {
    std::error_code ec;
    const fs::path real_root = fs::canonical(root, ec);
    if (ec) return tree_error(code, root, ".", "cannot be opened: " + ec.message());
    PackageTree tree;
    fs::recursive_directory_iterator it(real_root, fs::directory_options::none, ec);
    if (ec) return tree_error(code, root, ".", "cannot be listed: " + ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const fs::path& path = it->path();
        const std::string relative = path.lexically_relative(real_root).generic_string();
        if (relative == kPackageRecordFile) continue;
        struct stat info {};
        if (::lstat(path.c_str(), &info) != 0) return tree_error(code, root, relative, "cannot be read");
        if (S_ISDIR(info.st_mode)) continue;
        PackageFile file;
        file.path = relative;
        if (S_ISLNK(info.st_mode)) {
            file.link = fs::read_symlink(path, ec).string();
            const fs::path target = fs::weakly_canonical(path, ec);
            if (ec || !inside(target, real_root))
                return tree_error(code, root, relative,
                                  "is a symbolic link to " + file.link +
                                      ", outside the package: a package runs only from its own files");
        } else if (S_ISREG(info.st_mode)) {
            file.mode = info.st_mode & 07777;
            std::string problem;
            auto digest = digest_file(path, EVP_sha256(), problem);
            if (!digest) return tree_error(code, root, relative, problem);
            file.sha256 = hex(*digest);
        } else {
            return tree_error(code, root, relative,
                              "is neither a file, a directory nor a link (a device, socket or pipe)");
        }
        tree.files.push_back(std::move(file));
    }
    if (ec) return tree_error(code, root, ".", "cannot be listed: " + ec.message());
    std::sort(tree.files.begin(), tree.files.end(),
              [](const PackageFile& a, const PackageFile& b) { return a.path < b.path; });
    tree.digest = tree_digest(tree.files);
    return tree;
}

std::string tree_digest(const std::vector<PackageFile>& files) {
    std::string listing;
    for (const PackageFile& file : files) {
        listing += file.path;
        listing.push_back('\0');
        listing += file.link.empty() ? "f " + mode_text(file.mode) + " " + file.sha256 : "l " + file.link;
        listing.push_back('\n');
    }
    return "sha256-" + sha256_hex(listing);
}

std::optional<TreeDifference> first_difference(const std::vector<PackageFile>& recorded,
                                               const std::vector<PackageFile>& now) {
    auto was = recorded.begin();
    auto is = now.begin();
    for (; was != recorded.end() && is != now.end(); ++was, ++is) {
        if (was->path < is->path) return TreeDifference{was->path, "was removed"};
        if (is->path < was->path) return TreeDifference{is->path, "was added"};
        if (was->link != is->link)
            return TreeDifference{was->path, was->link.empty() ? "was a file and is now a link to " + is->link
                                             : is->link.empty()
                                                 ? "was a link and is now a file"
                                                 : "now links to " + is->link + " instead of " + was->link};
        if (was->sha256 != is->sha256) return TreeDifference{was->path, "has other content"};
        if (was->mode != is->mode)
            return TreeDifference{was->path, "has mode " + mode_text(is->mode) + " instead of " + mode_text(was->mode)};
    }
    if (was != recorded.end()) return TreeDifference{was->path, "was removed"};
    if (is != now.end()) return TreeDifference{is->path, "was added"};
    return std::nullopt;
}

Result<std::string> file_integrity_sha512(const fs::path& file, ErrorCode code) {
    std::string problem;
    auto digest = digest_file(file, EVP_sha512(), problem);
    if (!digest) return Error{code, file.string() + " " + problem};
    return "sha512-" + base64(*digest);
}

json::object package_record_json(const PackageRecord& record) {
    json::array files;
    for (const PackageFile& file : record.tree.files) {
        if (file.link.empty()) {
            files.push_back(json::object{{"path", file.path}, {"mode", mode_text(file.mode)}, {"sha256", file.sha256}});
        } else {
            files.push_back(json::object{{"path", file.path}, {"link", file.link}});
        }
    }
    return json::object{{"format", kRecordFormat},           {"npm", record.npm},
                        {"version", record.version},         {"integrity", record.integrity},
                        {"tree_digest", record.tree.digest}, {"files", std::move(files)}};
}

std::optional<PackageRecord> parse_package_record(std::string_view text, std::string& problem) {
    std::error_code ec;
    json::value value = json::parse(text, ec);
    const json::object* root = ec ? nullptr : value.if_object();
    if (root == nullptr) {
        problem = "is not JSON";
        return std::nullopt;
    }
    auto string_at = [](const json::object& object, std::string_view key) -> std::optional<std::string> {
        const json::value* field = object.if_contains(key);
        if (field == nullptr || !field->is_string()) return std::nullopt;
        return std::string(field->get_string());
    };
    const json::value* format = root->if_contains("format");
    const json::value* files = root->if_contains("files");
    auto npm = string_at(*root, "npm");
    auto version = string_at(*root, "version");
    auto integrity = string_at(*root, "integrity");
    auto digest = string_at(*root, "tree_digest");
    if (format == nullptr || !format->is_int64() || format->get_int64() != kRecordFormat || files == nullptr ||
        !files->is_array() || !npm || !version || !integrity || !digest) {
        problem = "is not a record of this version of skillhost (format " + std::to_string(kRecordFormat) + ")";
        return std::nullopt;
    }
    PackageRecord record{std::move(*npm), std::move(*version), std::move(*integrity), {}};
    record.tree.digest = std::move(*digest);
    for (const json::value& item : files->get_array()) {
        const json::object* entry = item.if_object();
        auto path = entry ? string_at(*entry, "path") : std::nullopt;
        if (!path) {
            problem = "has a file entry without a path";
            return std::nullopt;
        }
        PackageFile file;
        file.path = std::move(*path);
        if (auto link = string_at(*entry, "link")) {
            file.link = std::move(*link);
        } else {
            auto mode = string_at(*entry, "mode");
            auto sha256 = string_at(*entry, "sha256");
            if (!mode || !sha256 || mode->empty() || mode->size() > 5 ||
                mode->find_first_not_of("01234567") != std::string::npos) {
                problem = "has no mode or sha256 for " + file.path;
                return std::nullopt;
            }
            file.mode = static_cast<unsigned>(std::stoul(*mode, nullptr, 8));
            file.sha256 = std::move(*sha256);
        }
        record.tree.files.push_back(std::move(file));
    }
    return record;
}

}  // namespace skillhost::plugin
