// skillhost-runner: loads one plugin library, unchanged, in a process of its own and serves its
// skills to the host over the socket the host passes as fd 3. It sandboxes itself before the
// plugin's code (even its library constructors) runs. Started only by the host (ProcessPlugin).
#include "manifest/manifest.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/runner_protocol.hpp"
#include "runner/call_server.hpp"
#include "runner/sandbox.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
// Sanitizer builds only: a plugin calling exit() must end with its own status, but LeakSanitizer's
// check at exit needs a helper process, which the sandbox refuses (and a plugin's leaks are not
// the runner's to report).
extern "C" __attribute__((visibility("default"), used)) const char* __lsan_default_options() {
    return "leak_check_at_exit=0";
}
#endif

namespace {

using namespace skillhost;
using plugin::wire::FrameType;

constexpr int host_fd = 3;

// Log lines go to the host, which attributes them to the plugin itself.
class HostLogSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit HostLogSink(runner::HostLink& link) : link_(link) {}

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        std::string_view text(msg.payload.data(), msg.payload.size());
        // The plugin's own lines arrive as "[plugin NAME] text"; the host adds that prefix itself.
        if (text.starts_with("[plugin ")) {
            if (const auto end = text.find("] "); end != std::string_view::npos) text.remove_prefix(end + 2);
        }
        const std::int64_t level = msg.level <= spdlog::level::debug  ? SKILLHOST_LOG_DEBUG
                                   : msg.level == spdlog::level::info ? SKILLHOST_LOG_INFO
                                   : msg.level == spdlog::level::warn ? SKILLHOST_LOG_WARN
                                                                      : SKILLHOST_LOG_ERROR;
        plugin::wire::PayloadWriter w;
        w.integer(level).text(text.substr(0, 64 * 1024));
        link_.send(FrameType::log, 0, w.bytes());
    }
    void flush_() override {}

private:
    runner::HostLink& link_;
};

std::map<std::string, std::string> parse_args(int argc, char** argv) {
    std::map<std::string, std::string> out;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string key = argv[i];
        if (key.starts_with("--")) out[key.substr(2)] = argv[i + 1];
    }
    return out;
}

std::uint64_t number(const std::map<std::string, std::string>& args, const std::string& key, std::uint64_t fallback) {
    const auto found = args.find(key);
    if (found == args.end()) return fallback;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(found->second.c_str(), &end, 10);
    return end && *end == '\0' ? value : fallback;
}

std::string text(const std::map<std::string, std::string>& args, const std::string& key) {
    const auto found = args.find(key);
    return found == args.end() ? std::string() : found->second;
}

[[noreturn]] void fail(runner::HostLink& link, const Error& error) {
    link.send(FrameType::load_failed, 0, plugin::wire::encode(error));
    std::_Exit(2);
}

// Nothing the host had open may reach the plugin: its stdout and stderr are a pipe the host reads
// (bounded, escaped and attributed there), its stdin is empty.
void isolate_descriptors() {
    ::syscall(SYS_close_range, host_fd + 1, ~0U, 0);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, 0);
        ::close(null);
    }
}

// Moves this process into the cgroup leaf the host prepared (before the plugin's code runs, so
// everything it allocates counts).
bool join_cgroup(const std::string& leaf) {
    const int fd = ::open((leaf + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool joined = ::write(fd, "0", 1) == 1;
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return joined;
}

// What the host needs to offer the plugin's resources and prompts as if it ran in the host.
plugin::wire::PublishedExtensions published_extensions(const plugin::LoadedPlugin& loaded) {
    plugin::wire::PublishedExtensions out;
    if (const auto* r = static_cast<const skillhost_resources_v1*>(loaded.extension(SKILLHOST_EXT_RESOURCES))) {
        out.resources = true;
        out.resources_governing_skill = r->governing_skill ? r->governing_skill : "";
        out.uri_prefix = r->uri_prefix ? r->uri_prefix : "";
        out.resources_list = r->list != nullptr;
        out.resources_list_templates = r->list_templates != nullptr;
        out.resources_read = r->read != nullptr;
    }
    if (const auto* p = static_cast<const skillhost_prompts_v1*>(loaded.extension(SKILLHOST_EXT_PROMPTS))) {
        out.prompts = true;
        out.prompts_governing_skill = p->governing_skill ? p->governing_skill : "";
        out.prompts_list = p->list != nullptr;
        out.prompts_get = p->get != nullptr;
        out.prompts_complete = p->complete != nullptr;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    isolate_descriptors();
    ::signal(SIGPIPE, SIG_IGN);
    runner::HostLink link(host_fd);
    if (::fcntl(host_fd, F_GETFD) < 0) {
        std::fprintf(stderr, "skillhost-runner: started without the host's socket; only skillhost starts it\n");
        return 2;
    }
    const auto args = parse_args(argc, argv);
    spdlog::default_logger()->sinks().clear();
    spdlog::default_logger()->sinks().push_back(std::make_shared<HostLogSink>(link));
    spdlog::set_level(spdlog::level::debug);

    Result<manifest::Manifest> manifest = manifest::load_manifest(text(args, "manifest"));
    if (!manifest) fail(link, manifest.error());

    runner::SandboxRequest sandbox;
    const std::string mode = text(args, "sandbox");
    sandbox.mode = mode == "off"       ? plugin::SandboxMode::off
                   : mode == "require" ? plugin::SandboxMode::require
                                       : plugin::SandboxMode::best_effort;
    sandbox.limits.memory_mb = number(args, "memory-mb", sandbox.limits.memory_mb);
    sandbox.limits.cpu_seconds = number(args, "cpu-seconds", 0);
    sandbox.limits.open_files = number(args, "open-files", sandbox.limits.open_files);
    sandbox.limits.max_tasks = number(args, "max-tasks", sandbox.limits.max_tasks);
    // Every leaf the host prepared (cgroup v2: one; v1: memory and pids), before the sandboxed
    // process is made, so it and everything it allocates count.
    for (const char* key : {"cgroup", "cgroup-pids"}) {
        const std::string leaf = text(args, key);
        if (leaf.empty()) continue;
        if (join_cgroup(leaf)) {
            sandbox.cgroup += (sandbox.cgroup.empty() ? "" : ", ") + leaf;
        } else {
            sandbox.cgroup_problem = "cannot join " + leaf + ": " + std::strerror(errno);
            sandbox.cgroup.clear();
            break;
        }
    }
    sandbox.runner_uid = static_cast<uid_t>(number(args, "runner-uid", 0));
    sandbox.runner_gid = static_cast<gid_t>(number(args, "runner-gid", 0));
    sandbox.disk_budget_bytes = number(args, "disk-budget-bytes", 0);
    sandbox.host_fd = host_fd;
    sandbox.read_only.push_back(manifest->library_path().parent_path());
    sandbox.read_only.push_back(manifest->file.parent_path());
    if (const std::string data_dir = text(args, "data-dir"); !data_dir.empty()) sandbox.read_write.push_back(data_dir);
    sandbox.workspace = text(args, "workspace");
    const std::string access = text(args, "workspace-access");
    sandbox.workspace_access = access == "read"         ? runner::WorkspaceAccess::read
                               : access == "read_write" ? runner::WorkspaceAccess::read_write
                                                        : runner::WorkspaceAccess::none;
    sandbox.network = text(args, "network") == "1";
    Result<boost::json::object> enforced = runner::apply_sandbox(sandbox);
    if (!enforced) fail(link, enforced.error());

    plugin::LoaderOptions options;
    options.isolation.max_result_bytes = number(args, "max-result-bytes", options.isolation.max_result_bytes);
    runner::HostRequests requests(link, options.isolation.max_result_bytes);
    options.private_copy = false;  // this process maps the library once and nothing else
    // The host answers the extensions it answers (its model, its storage, ...), for requests made
    // outside any call too (it refuses those).
    options.forward = requests.forward(0);
    Result<std::shared_ptr<plugin::LoadedPlugin>> loaded = plugin::PluginLoader(options).load(manifest.value());
    if (!loaded) fail(link, loaded.error());

    plugin::wire::ReadyInfo ready;
    ready.version = std::string(loaded.value()->version());
    ready.abi_major = loaded.value()->abi_version().major;
    ready.abi_minor = loaded.value()->abi_version().minor;
    if (const auto* info =
            static_cast<const skillhost_plugin_info_v1*>(loaded.value()->extension(SKILLHOST_EXT_PLUGIN_INFO))) {
        ready.has_info = true;
        ready.description = info->description ? info->description : "";
        ready.homepage = info->homepage ? info->homepage : "";
    }
    ready.sandbox_json = boost::json::serialize(enforced.value());
    ready.published = published_extensions(*loaded.value());
    link.send(FrameType::ready, 0, plugin::wire::encode(ready));

    {
        runner::CallServer server(link, loaded.value(), requests,
                                  std::chrono::milliseconds(number(args, "idle-ms", 300000)));
        // A call that ignores cancellation still runs inside the plugin: leave without unloading.
        if (!server.serve()) std::_Exit(0);
    }
    // The plugin's shutdown() runs only when no call is left running in it.
    loaded.value().reset();
    std::_Exit(0);
}
