#include "plugin/foreign_package.hpp"

#include "plugin/bounded_command.hpp"
#include "plugin/package_tree.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace skillhost::plugin {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxNpmText = 800;  // of npm's output, in an error message

std::string spec_of(const manifest::ForeignPackage& package) {
    return package.npm + "@" + package.version;
}

// What to run when the package is missing or changed.
std::string install_hint(const manifest::ForeignServer& server) {
    return "run `skillhost plugin install " + server.file.string() + "`";
}

Error package_error(ErrorCode code, std::string message, const manifest::ForeignServer& server,
                    const fs::path& install_dir) {
    Error error{code, std::move(message)};
    error.details["package"] = server.package->npm;
    error.details["version"] = server.package->version;
    error.details["install_dir"] = install_dir.string();
    error.details["manifest"] = server.file.string();
    error.details["plugin"] = server.name;
    return error;
}

// The end of what npm said (where its error is), one line, printable.
std::string npm_said(const CommandOutcome& outcome) {
    std::string text = outcome.err.empty() ? outcome.out : outcome.err;
    if (text.size() > kMaxNpmText) text = "..." + text.substr(text.size() - kMaxNpmText);
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return text;
}

std::optional<std::string> read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string staging_prefix(const std::string& label) {
    return ".staging-" + label + "-";
}

// What an install of `label` interrupted by a crash left behind; only called under its lock.
void remove_abandoned_staging(const fs::path& parent, const std::string& label) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
        if (entry.path().filename().string().starts_with(staging_prefix(label))) fs::remove_all(entry.path(), ec);
    }
}

// A directory made here and removed when this goes, unless it was moved away.
class StagingDir {
public:
    static Result<StagingDir> make(const fs::path& parent, const std::string& label) {
        std::string pattern = (parent / (staging_prefix(label) + "XXXXXX")).string();
        if (::mkdtemp(pattern.data()) == nullptr)
            return Error{errors::kUpstreamPackageInstallFailed, "cannot make a staging directory in " +
                                                                    parent.string() + ": " + std::strerror(errno) +
                                                                    "; check that packages_dir is writable"};
        return StagingDir(pattern);
    }
    StagingDir(StagingDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
    StagingDir& operator=(StagingDir&&) = delete;
    ~StagingDir() {
        std::error_code ignored;
        if (!path_.empty()) fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }

private:
    explicit StagingDir(fs::path path) : path_(std::move(path)) {}
    fs::path path_;
};

// Held while one process installs a package: another install of it waits.
class InstallLock {
public:
    explicit InstallLock(const fs::path& file) : fd_(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ >= 0) {
            while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
        }
    }
    InstallLock(const InstallLock&) = delete;
    InstallLock& operator=(const InstallLock&) = delete;
    ~InstallLock() {
        if (fd_ >= 0) ::close(fd_);
    }
    bool held() const { return fd_ >= 0; }

private:
    int fd_;
};

// Readable by every user, as the unprivileged runner user of a root daemon's sandbox must read it;
// executable by every user where its owner may execute it.
void make_readable_by_others(const fs::path& root) {
    using fs::perms;
    std::error_code ec;
    fs::permissions(root, perms::group_read | perms::group_exec | perms::others_read | perms::others_exec,
                    fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const fs::file_status status = it->symlink_status(ec);
        if (ec || fs::is_symlink(status)) continue;
        perms add = perms::group_read | perms::others_read;
        if (fs::is_directory(status) || (status.permissions() & perms::owner_exec) != perms::none)
            add |= perms::group_exec | perms::others_exec;
        fs::permissions(it->path(), add, fs::perm_options::add, ec);
    }
}

Result<CommandOutcome> run_npm(const fs::path& npm, std::vector<std::string> args, const fs::path& cwd,
                               const PackageInstallOptions& options) {
    BoundedCommand command;
    command.program = npm;
    command.args = std::move(args);
    command.working_directory = cwd;
    command.timeout = options.npm_timeout;
    return run_bounded_command(command, errors::kUpstreamPackageInstallFailed);
}

Error npm_failed(const std::string& what, const CommandOutcome& outcome, const manifest::ForeignServer& server,
                 const fs::path& install_dir, const std::string& advice) {
    std::string message = what + (outcome.timed_out ? " did not finish in time and was stopped"
                                                    : " failed (exit " + std::to_string(outcome.exit_code) + ")");
    const std::string said = npm_said(outcome);
    if (!said.empty()) message += ": " + said;
    Error error = package_error(errors::kUpstreamPackageInstallFailed, message + "; " + advice, server, install_dir);
    error.details["npm_exit"] = outcome.exit_code;
    return error;
}

// The file `npm pack --json` says it wrote, in `dir`.
std::optional<fs::path> packed_tarball(const std::string& out, const fs::path& dir) {
    std::error_code ec;
    json::value value = json::parse(out, ec);
    const json::array* list = ec ? nullptr : value.if_array();
    const json::object* first = list != nullptr && !list->empty() ? list->front().if_object() : nullptr;
    const json::value* name = first != nullptr ? first->if_contains("filename") : nullptr;
    if (name == nullptr || !name->is_string()) return std::nullopt;
    const fs::path file = fs::path(std::string(name->get_string())).filename();
    if (file.empty() || !fs::is_regular_file(dir / file, ec)) return std::nullopt;
    return dir / file;
}

// The package npm installed is the one declared (its package.json names it and its version).
std::optional<std::string> installed_as_declared(const fs::path& package_dir, const manifest::ForeignPackage& package) {
    auto text = read_text(package_dir / "package.json");
    if (!text) return "npm installed no " + (package_dir / "package.json").string();
    std::error_code ec;
    json::value value = json::parse(*text, ec);
    const json::object* root = ec ? nullptr : value.if_object();
    const json::value* name = root ? root->if_contains("name") : nullptr;
    const json::value* version = root ? root->if_contains("version") : nullptr;
    if (name == nullptr || version == nullptr || !name->is_string() || !version->is_string() ||
        name->get_string() != package.npm || version->get_string() != package.version)
        return (package_dir / "package.json").string() + " does not name " + spec_of(package);
    return std::nullopt;
}

// The record beside the tree, readable by every user.
Status write_record(const fs::path& install, const PackageRecord& record) {
    const fs::path file = install / kPackageRecordFile;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << json::serialize(package_record_json(record)) << "\n";
    out.close();
    if (!out) return Error{errors::kUpstreamPackageInstallFailed, "cannot write " + file.string()};
    std::error_code ec;
    fs::permissions(
        file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read, ec);
    return {};
}

// Puts the finished install in place in one step: renamed, or exchanged with a changed install
// (then `staged` holds the old one, removed with the staging directory).
Status move_into_place(const fs::path& staged, const fs::path& target) {
    if (::rename(staged.c_str(), target.c_str()) == 0) return {};
    if ((errno == ENOTEMPTY || errno == EEXIST) &&
        ::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0)
        return {};
    return Error{errors::kUpstreamPackageInstallFailed,
                 "cannot move the install into " + target.string() + ": " + std::strerror(errno)};
}

Result<InstalledPackage> fetch_and_install(const manifest::ForeignServer& server, const PackageInstallOptions& options,
                                           const fs::path& target) {
    const manifest::ForeignPackage& package = *server.package;
    const auto npm = find_program("npm");
    if (!npm)
        return package_error(errors::kUpstreamPackageInstallFailed,
                             "npm is not installed (not found on PATH), and installing " + spec_of(package) +
                                 " needs it; install Node.js and npm (Debian: apt-get install nodejs npm), then " +
                                 install_hint(server) + " again",
                             server, target);
    auto staging = StagingDir::make(options.packages_dir, target.filename().string());
    if (!staging) return std::move(staging.error());
    const fs::path download = staging->path() / "download";
    const fs::path install = staging->path() / "install";
    std::error_code ec;
    fs::create_directories(download, ec);
    fs::create_directories(install, ec);

    auto packed = run_npm(*npm,
                          {"pack", spec_of(package), "--pack-destination", download.string(), "--json",
                           "--ignore-scripts", "--loglevel=error"},
                          download, options);
    if (!packed) return std::move(packed.error());
    if (packed->exit_code != 0 || packed->timed_out)
        return npm_failed("npm pack " + spec_of(package), *packed, server, target,
                          "check the package name and version, and that the npm registry is reachable (npm's own "
                          "settings apply: .npmrc, npm_config_registry, proxies)");
    const auto tarball = packed_tarball(packed->out, download);
    if (!tarball)
        return package_error(errors::kUpstreamPackageInstallFailed,
                             "npm pack " + spec_of(package) + " did not say which file it wrote (its --json output: " +
                                 packed->out.substr(0, kMaxNpmText) + "); check the npm version (7 or later)",
                             server, target);
    auto integrity = file_integrity_sha512(*tarball, errors::kUpstreamPackageInstallFailed);
    if (!integrity) return std::move(integrity.error());
    if (integrity.value() != package.integrity) {
        Error error = package_error(
            errors::kUpstreamPackageIntegrity,
            "the tarball of " + spec_of(package) + " has integrity " + integrity.value() +
                ", but the declaration says " + package.integrity +
                "; nothing was installed. If the declaration is wrong, take the integrity from package-lock.json or "
                "`npm view " +
                spec_of(package) + " dist.integrity`; if not, the registry served another file than the one pinned",
            server, target);
        error.details["declared_integrity"] = package.integrity;
        error.details["actual_integrity"] = integrity.value();
        return error;
    }

    auto installed = run_npm(*npm,
                             {"install", "--ignore-scripts", "--no-audit", "--no-fund", "--omit=dev",
                              "--loglevel=error", "--prefix", install.string(), tarball->string()},
                             install, options);
    if (!installed) return std::move(installed.error());
    if (installed->exit_code != 0 || installed->timed_out)
        return npm_failed("npm install of " + spec_of(package), *installed, server, target,
                          "its dependencies come from the npm registry: check that it is reachable");
    const fs::path package_dir = package_directory(install, package);
    if (auto problem = installed_as_declared(package_dir, package))
        return package_error(errors::kUpstreamPackageInstallFailed, *problem + "; nothing was installed", server,
                             target);
    make_readable_by_others(install);
    auto tree = read_package_tree(install, errors::kUpstreamPackageInstallFailed);
    if (!tree)
        return package_error(
            errors::kUpstreamPackageInstallFailed,
            "npm's install of " + spec_of(package) + " is refused: " + tree.error().message + "; nothing was installed",
            server, target);
    PackageRecord record{package.npm, package.version, package.integrity, tree.value()};
    if (Status written = write_record(install, record); !written) return written.error();
    if (Status moved = move_into_place(install, target); !moved) return moved.error();
    InstalledPackage result;
    result.install_dir = target;
    result.package_dir = package_directory(target, package);
    result.integrity = package.integrity;
    result.tree_digest = record.tree.digest;
    result.files = record.tree.files.size();
    return result;
}

}  // namespace

fs::path package_install_dir(const fs::path& packages_dir, const manifest::ForeignPackage& package) {
    std::string name = package.npm;
    for (char& c : name)
        if (c == '/') c = '+';  // npm names have no '+': one directory per package, scoped or not
    return packages_dir / (name + "@" + package.version);
}

fs::path package_record_file(const fs::path& packages_dir, const manifest::ForeignPackage& package) {
    return package_install_dir(packages_dir, package) / kPackageRecordFile;
}

fs::path package_directory(const fs::path& install_dir, const manifest::ForeignPackage& package) {
    return install_dir / "node_modules" / package.npm;
}

Result<InstalledPackage> verify_package(const manifest::ForeignServer& server, const fs::path& packages_dir) {
    if (!server.package)
        return Error{errors::kUpstreamPackageNotInstalled,
                     server.file.string() + " declares no package: there is nothing to install or verify"};
    const manifest::ForeignPackage& package = *server.package;
    const fs::path dir = package_install_dir(packages_dir, package);
    const std::string what = "npm package " + spec_of(package) + " of MCP server '" + server.name + "'";
    std::error_code ec;
    if (packages_dir.empty())
        return package_error(errors::kUpstreamPackageNotInstalled,
                             what +
                                 " cannot be found: no packages_dir is configured; set packages_dir in "
                                 "skillhost.yaml and " +
                                 install_hint(server),
                             server, dir);
    if (!fs::is_directory(dir, ec))
        return package_error(errors::kUpstreamPackageNotInstalled,
                             what + " is not installed (no " + dir.string() + "); " + install_hint(server) +
                                 " once, where the npm registry is reachable: the server then runs from it offline",
                             server, dir);
    const auto text = read_text(dir / kPackageRecordFile);
    std::string problem = "is missing or unreadable";
    const auto record = text ? parse_package_record(*text, problem) : std::nullopt;
    if (!record || record->npm != package.npm || record->version != package.version) {
        Error error = package_error(errors::kUpstreamPackageModified,
                                    "the install record " + (dir / kPackageRecordFile).string() + " of " + what + " " +
                                        (record ? "names another package" : problem) + "; " + install_hint(server) +
                                        " to install it again",
                                    server, dir);
        error.details["file"] = std::string(kPackageRecordFile);
        return error;
    }
    if (record->integrity != package.integrity) {
        Error error = package_error(
            errors::kUpstreamPackageIntegrity,
            what + " at " + dir.string() + " was installed from a tarball with integrity " + record->integrity +
                ", and the declaration says " + package.integrity + "; check which is right (`npm view " +
                spec_of(package) + " dist.integrity`), then " + install_hint(server) + " to install the declared one",
            server, dir);
        error.details["declared_integrity"] = package.integrity;
        error.details["installed_integrity"] = record->integrity;
        return error;
    }
    auto tree = read_package_tree(dir, errors::kUpstreamPackageModified);
    if (!tree) {
        Error error =
            package_error(errors::kUpstreamPackageModified,
                          tree.error().message + "; " + install_hint(server) + " to install it again", server, dir);
        if (const auto* file = tree.error().details.if_contains("file")) error.details["file"] = *file;
        return error;
    }
    const auto difference = first_difference(record->tree.files, tree->files);
    if (difference || tree->digest != record->tree.digest) {
        const std::string file = difference ? difference->path : std::string(kPackageRecordFile);
        Error error = package_error(errors::kUpstreamPackageModified,
                                    "file " + file + " of " + what + " (" + dir.string() + ") " +
                                        (difference ? difference->what : "does not match its own listing") +
                                        " since it was installed, so it is not run; " + install_hint(server) +
                                        " to install it again (and find out who changed it)",
                                    server, dir);
        error.details["file"] = file;
        return error;
    }
    InstalledPackage result;
    result.install_dir = dir;
    result.package_dir = package_directory(dir, package);
    result.integrity = record->integrity;
    result.tree_digest = tree->digest;
    result.files = tree->files.size();
    return result;
}

Result<InstalledPackage> install_package(const manifest::ForeignServer& server, const PackageInstallOptions& options) {
    if (!server.package)
        return Error{
            errors::kUpstreamPackageInstallFailed,
            server.file.string() + " declares no package: add package: {npm, version, integrity} to install one"};
    const fs::path target = package_install_dir(options.packages_dir, *server.package);
    std::error_code ec;
    fs::create_directories(options.packages_dir, ec);
    if (ec || options.packages_dir.empty())
        return package_error(errors::kUpstreamPackageInstallFailed,
                             "cannot create the packages directory " + options.packages_dir.string() + " (" +
                                 ec.message() + "); set packages_dir in skillhost.yaml to a writable directory",
                             server, target);
    fs::permissions(options.packages_dir, fs::perms::others_exec | fs::perms::group_exec, fs::perm_options::add, ec);
    InstallLock lock(options.packages_dir / ("." + target.filename().string() + ".lock"));
    if (!lock.held())
        return package_error(errors::kUpstreamPackageInstallFailed,
                             "cannot lock " + options.packages_dir.string() + "; check that it is writable", server,
                             target);
    remove_abandoned_staging(options.packages_dir, target.filename().string());
    auto existing = verify_package(server, options.packages_dir);
    if (existing) {
        existing->already_installed = true;
        return existing;
    }
    auto installed = fetch_and_install(server, options, target);
    if (installed && !existing.error().is(errors::kUpstreamPackageNotInstalled))
        installed->replaced = existing.error().message;
    return installed;
}

Result<manifest::ForeignServer> with_installed_package(const manifest::ForeignServer& server,
                                                       const fs::path& packages_dir) {
    if (!server.package) return server;
    auto installed = verify_package(server, packages_dir);
    if (!installed) {
        // A call to a tool the declaration names is then told why the server is not there.
        boost::json::array skills;
        for (const manifest::ToolOverride& tool : server.skills) skills.emplace_back(server.name + "__" + tool.tool);
        installed.error().details["skills"] = std::move(skills);
        return std::move(installed.error());
    }
    manifest::ForeignServer running = server;
    const std::string dir = installed->package_dir.string();
    constexpr std::string_view kPlaceholder = "${package}";
    for (std::string& arg : running.args) arg = replaced_all(std::move(arg), kPlaceholder, dir);
    for (auto& entry : running.env) entry.second = replaced_all(std::move(entry.second), kPlaceholder, dir);
    running.working_directory = replaced_all(std::move(running.working_directory), kPlaceholder, dir);
    running.files.push_back(installed->install_dir);
    return running;
}

std::string replaced_all(std::string text, std::string_view placeholder, const std::string& value) {
    for (std::size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size()))
        text.replace(at, placeholder.size(), value);
    return text;
}

}  // namespace skillhost::plugin
