// The npm package a foreign MCP server declaration pins (`package: {npm, version, integrity}`):
// installed once by a command (`skillhost plugin install`), checked before every load, and run
// from where it was installed, offline, with nothing fetched at run time.
//
// An install lives in `<packages_dir>/<npm name, '/' as '+'>@<version>`: npm's install of the
// tarball (node_modules/<npm>, its dependencies, package.json and package-lock.json) and a record
// (package_tree.hpp) of the package it was made from and of every file it holds. The tarball's
// SHA-512 is computed here and must equal the declared integrity before anything is installed; no
// install script runs (they would run as the daemon's user); the directory appears complete or not
// at all (it is built beside and renamed into place).
#pragma once

#include "base/error.hpp"
#include "manifest/foreign_server.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace skillhost::plugin {

// Where the package of `package` is installed, and the package's own directory in it (what
// ${package} names).
std::filesystem::path package_install_dir(const std::filesystem::path& packages_dir,
                                          const manifest::ForeignPackage& package);
std::filesystem::path package_directory(const std::filesystem::path& install_dir,
                                        const manifest::ForeignPackage& package);
// The install's record (package_tree.hpp): written last, inside the directory that is renamed into
// place, so its identity changes whenever an install appears, is replaced or goes. A host watching
// for installs watches this file (reload/live_catalog.hpp).
std::filesystem::path package_record_file(const std::filesystem::path& packages_dir,
                                          const manifest::ForeignPackage& package);

struct InstalledPackage {
    std::filesystem::path install_dir, package_dir;
    std::string integrity, tree_digest;
    std::size_t files = 0;
    bool already_installed = false;  // install found it installed and unchanged, and did nothing
    std::string replaced;            // install replaced a changed install: what had changed in it
};

struct PackageInstallOptions {
    std::filesystem::path packages_dir;
    std::chrono::milliseconds npm_timeout{600000};  // for each npm command
};

// Installs the declaration's package (UPSTREAM_PACKAGE_INSTALL_FAILED: npm missing or failing, a
// directory not writable; UPSTREAM_PACKAGE_INTEGRITY: the tarball is not the one declared). On any
// failure nothing is left in packages_dir. Installed and unchanged: says so and does nothing.
Result<InstalledPackage> install_package(const manifest::ForeignServer& server, const PackageInstallOptions& options);

// Checks the installed package against the declaration and its record:
// UPSTREAM_PACKAGE_NOT_INSTALLED, UPSTREAM_PACKAGE_INTEGRITY (installed from another tarball than
// the one declared now), UPSTREAM_PACKAGE_MODIFIED (details.file: the first file that differs).
Result<InstalledPackage> verify_package(const manifest::ForeignServer& server,
                                        const std::filesystem::path& packages_dir);

// The declaration as it runs: without `package:`, as it is; with it, once verify_package passes,
// ${package} filled in (args, env values, working_directory) and the install added to `files` (read
// and executed in the sandbox). Errors of verify_package.
Result<manifest::ForeignServer> with_installed_package(const manifest::ForeignServer& server,
                                                       const std::filesystem::path& packages_dir);

// `text` with every `placeholder` ("${package}") replaced by `value` (a value holding the
// placeholder is not expanded again).
std::string replaced_all(std::string text, std::string_view placeholder, const std::string& value);

}  // namespace skillhost::plugin
