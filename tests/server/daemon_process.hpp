// `skillhost serve` started the way a user starts it, on a temporary home: etc/ with users (each
// with a known API token), policy and models as a test needs, the built-in plugins plus the echo
// fixture, listening on a free loopback port. Its state lives on the backend the test binary runs
// on (storage_variant.hpp): the home's SQLite file, or a fresh PostgreSQL database.
#pragma once

#include "db/storage_location.hpp"
#include "http_test_client.hpp"
#include "support/child_process.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::testing {

struct DaemonSetup {
    // Users: owner (owner, bounded_auto), alice (standard, supervised_auto), eve (guest, observe,
    // emulation), each with token "<id>-token" in users.yaml as a hash.
    std::string policy_yaml;
    std::string models_yaml;  // empty: the built-in model for every role
    std::string script_yaml;  // written to etc/script.yaml (for a scripted model)
    std::string server_yaml;  // extra lines under `server:` (indented by two spaces)
    std::string extra_yaml;   // extra top-level lines of skillhost.yaml (e.g. an `isolation:` section);
                              // a `storage:` section here overrides the binary's backend
    bool echo_fixture = true;
    // Runs the daemon as the unprivileged user `nobody` (setpriv; the test must run as root): its
    // directories are handed to that user, so file permissions bind it as they bind a real daemon's
    // user (root passes every permission check).
    bool run_as_nobody = false;
};

class DaemonProcess {
public:
    explicit DaemonProcess(DaemonSetup setup = {});
    ~DaemonProcess();

    // Starts `skillhost serve` and waits until it listens. Throws when it does not.
    void start();
    std::uint16_t port() const { return port_; }
    // Sends SIGTERM and waits for the exit code.
    int stop(std::chrono::milliseconds timeout = std::chrono::seconds(30));
    // Stops the daemon (SIGTERM) and starts it again listening on the same port, so clients keep
    // their URL across the restart. The exit code of the stopped daemon.
    int restart_on_same_port();
    ChildProcess& process() { return *process_; }
    std::string log();  // stderr so far

    static std::string token(std::string_view user) { return std::string(user) + "-token"; }
    // Runs `skillhost ARGS --config <etc>/skillhost.yaml --home <home>` next to the daemon, as a
    // user at the terminal would.
    ProcessResult cli(std::vector<std::string> args, int timeout_ms = 60000);
    // `skillhost token create --user USER --scope SCOPES`: the new token.
    std::string create_token(std::string_view user, std::string_view scopes);
    HttpResult post_with(const std::string& target, const std::string& body, const std::string& bearer);
    HttpResult get(const std::string& target, std::string_view user = "owner");
    HttpResult post(const std::string& target, const std::string& body, std::string_view user = "owner");

    std::filesystem::path home() const { return dir_.path() / "home"; }
    std::filesystem::path etc() const { return dir_.path() / "etc"; }
    std::filesystem::path plugins_dir() const { return dir_.path() / "plugins"; }
    // Where the daemon and cli() keep their state, for a test that looks at it behind their back
    // (when the setup's extra_yaml names no `storage:` of its own).
    const db::StorageLocation& storage() const { return storage_; }

private:
    TempDir dir_{"skillhost-serve"};
    std::unique_ptr<ChildProcess> process_;
    std::uint16_t port_ = 0;
    db::StorageLocation storage_;
    bool run_as_nobody_ = false;
};

}  // namespace skillhost::testing
