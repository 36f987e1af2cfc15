// skillhost-runner: loads one plugin library, unchanged, in a process of its own and serves its
// skills to the host over the socket the host passes as fd 3. It sandboxes itself before the
// plugin's code (even its library constructors) runs. Started only by the host (ProcessPlugin).
#include "manifest/manifest.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/runner_protocol.hpp"
#include "runner/call_server.hpp"
#include "runner/runner_args.hpp"
#include "runner/server_exec.hpp"
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
    // Server mode: sandbox itself and become a foreign MCP server (runner/server_exec.hpp).
    if (argc > 1 && std::strcmp(argv[1], "--exec-server") == 0) return runner::exec_server(argc, argv);
    isolate_descriptors();
    ::signal(SIGPIPE, SIG_IGN);
    runner::HostLink link(host_fd);
    if (::fcntl(host_fd, F_GETFD) < 0) {
        std::fprintf(stderr, "skillhost-runner: started without the host's socket; only skillhost starts it\n");
        return 2;
    }
    const runner::RunnerArgs args(argc, argv, 1);
    spdlog::default_logger()->sinks().clear();
    spdlog::default_logger()->sinks().push_back(std::make_shared<HostLogSink>(link));
    spdlog::set_level(spdlog::level::debug);

    Result<manifest::Manifest> manifest = manifest::load_manifest(args.text("manifest"));
    if (!manifest) fail(link, manifest.error());

    runner::SandboxRequest sandbox = runner::sandbox_request(args);
    sandbox.host_fd = host_fd;
    sandbox.read_only.push_back(manifest->library_path().parent_path());
    sandbox.read_only.push_back(manifest->file.parent_path());
    Result<boost::json::object> enforced = runner::apply_sandbox(sandbox);
    if (!enforced) fail(link, enforced.error());

    plugin::LoaderOptions options;
    options.isolation.max_result_bytes = args.number("max-result-bytes", options.isolation.max_result_bytes);
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
                                  std::chrono::milliseconds(args.number("idle-ms", 300000)));
        // A call that ignores cancellation still runs inside the plugin: leave without unloading.
        if (!server.serve()) std::_Exit(0);
    }
    // The plugin's shutdown() runs only when no call is left running in it.
    loaded.value().reset();
    std::_Exit(0);
}
