#include "daemon_process.hpp"

#include "auth/api_token.hpp"
#include "storage_variant.hpp"

#include <boost/json/parse.hpp>

#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;

// True when skillhost.yaml's extra lines open a top-level `storage:` section of their own.
bool names_storage(const std::string& yaml) {
    return yaml.rfind("storage:", 0) == 0 || yaml.find("\nstorage:") != std::string::npos;
}

}  // namespace

DaemonProcess::DaemonProcess(DaemonSetup setup) {
    fs::create_directories(plugins_dir());
    fs::create_directories(home());
    std::string config =
        "plugin_dirs: [" + plugins_dir().string() + "]\nreload_debounce_ms: 20\nserver:\n  listen: 127.0.0.1:0\n";
    config += setup.server_yaml;
    config += setup.extra_yaml;
    storage_ = db::StorageLocation::sqlite(home() / "skillhost.db");
    if (!names_storage(setup.extra_yaml) && selected_storage_backend() == db::StorageBackend::postgres) {
        storage_ = db::StorageLocation::postgres(fresh_postgres_database());
        config += "storage:\n  backend: postgres\n  url: \"" + storage_.postgres_url + "\"\n";
    }
    write_file(etc() / "skillhost.yaml", config);
    std::string users = "users:\n";
    for (const char* line :
         {"{id: owner, role: owner, trust: bounded_auto", "{id: alice, role: standard, trust: supervised_auto",
          "{id: eve, role: guest, trust: observe, default_mode: emulation"}) {
        const std::string text(line);
        const std::string id = text.substr(5, text.find(',') - 5);
        users += "  - " + text + ", api_token_sha256: " + auth::hash_api_token(token(id)) + "}\n";
    }
    write_file(etc() / "users.yaml", users);
    write_file(etc() / "policy.yaml", setup.policy_yaml);
    if (!setup.models_yaml.empty()) write_file(etc() / "models.yaml", setup.models_yaml);
    if (!setup.script_yaml.empty()) write_file(etc() / "script.yaml", setup.script_yaml);
    if (setup.echo_fixture) {
        const fs::path source = fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo";
        for (const auto& entry : fs::directory_iterator(source)) {
            if (entry.is_regular_file()) fs::copy_file(entry.path(), plugins_dir() / entry.path().filename());
        }
    }
    run_as_nobody_ = setup.run_as_nobody;
}

namespace {

constexpr uid_t nobody = 65534;

void hand_over_to_nobody(const fs::path& dir) {
    if (::chown(dir.c_str(), nobody, nobody) != 0) throw std::runtime_error("cannot chown " + dir.string());
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (::lchown(entry.path().c_str(), nobody, nobody) != 0)
            throw std::runtime_error("cannot chown " + entry.path().string());
}

}  // namespace

DaemonProcess::~DaemonProcess() {
    if (process_) {
        process_->signal(SIGKILL);
        process_->wait(std::chrono::seconds(5));
    }
}

void DaemonProcess::start() {
    const fs::path port_file = home() / "port";
    fs::remove(port_file);
    std::vector<std::string> argv{SKILLHOST_BINARY, "serve",         "--config",    (etc() / "skillhost.yaml").string(),
                                  "--home",         home().string(), "--port-file", port_file.string()};
    if (run_as_nobody_) {
        hand_over_to_nobody(dir_.path());
        const std::string id = std::to_string(nobody);
        argv.insert(argv.begin(), {"/usr/bin/setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"});
    }
    process_ =
        std::make_unique<ChildProcess>(argv, std::map<std::string, std::string>{{"SKILLHOST_LOG_LEVEL", "info"}});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in(port_file);
        unsigned port = 0;
        if (in >> port && port) {
            port_ = static_cast<std::uint16_t>(port);
            return;
        }
        if (::kill(process_->pid(), 0) != 0) break;  // it exited
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("skillhost serve did not start listening; its log:\n" + process_->stderr_text());
}

int DaemonProcess::stop(std::chrono::milliseconds timeout) {
    process_->signal(SIGTERM);
    const int code = process_->wait(timeout);
    return code;
}

int DaemonProcess::restart_on_same_port() {
    const int code = stop();
    const fs::path file = etc() / "skillhost.yaml";
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::string config = text.str();
    const std::string any_port = "  listen: 127.0.0.1:0\n";
    if (const auto at = config.find(any_port); at != std::string::npos)
        config.replace(at, any_port.size(), "  listen: 127.0.0.1:" + std::to_string(port_) + "\n");
    write_file(file, config);
    start();
    return code;
}

std::string DaemonProcess::log() {
    return process_ ? process_->stderr_text() : std::string();
}

HttpResult DaemonProcess::get(const std::string& target, std::string_view user) {
    return http_request(port_, RequestSpec{"GET", target, "", user.empty() ? "" : token(user), {}});
}

HttpResult DaemonProcess::post(const std::string& target, const std::string& body, std::string_view user) {
    return http_request(port_, RequestSpec{"POST", target, body, user.empty() ? "" : token(user), {}});
}

HttpResult DaemonProcess::post_with(const std::string& target, const std::string& body, const std::string& bearer) {
    return http_request(port_, RequestSpec{"POST", target, body, bearer, {}});
}

ProcessResult DaemonProcess::cli(std::vector<std::string> args, int timeout_ms) {
    std::vector<std::string> argv{SKILLHOST_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--config", (etc() / "skillhost.yaml").string(), "--home", home().string()});
    return run_process(argv, {{"SKILLHOST_LOG_LEVEL", "warn"}}, {}, timeout_ms);
}

std::string DaemonProcess::create_token(std::string_view user, std::string_view scopes) {
    auto created = cli({"token", "create", "--user", std::string(user), "--scope", std::string(scopes), "--json"});
    if (created.exit_code != 0) throw std::runtime_error("token create failed: " + created.err);
    return std::string(boost::json::parse(created.out).at("token").as_string());
}

}  // namespace skillhost::testing
