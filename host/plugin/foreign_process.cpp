#include "plugin/foreign_process.hpp"

#include "plugin/error_codes.hpp"
#include "plugin/runner_cgroups.hpp"
#include "plugin/runner_connection.hpp"
#include "plugin/runner_protocol.hpp"
#include "plugin/runner_output.hpp"
#include "plugin/spawn_session.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace skillhost::plugin {
namespace {

// Where the sandbox lets any server execute from (runner/sandbox.cpp grants the same).
constexpr std::string_view kSystemProgramDirs[] = {"/usr", "/lib", "/lib64", "/lib32", "/opt"};

bool executable(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The program to run: a path (relative to the declaration's directory), or a name found in the
// fixed PATH. nullopt when there is none that can be executed.
std::optional<std::filesystem::path> resolve_program(const ForeignLaunch& launch) {
    if (launch.command.find('/') != std::string::npos) {
        std::filesystem::path path(launch.command);
        if (path.is_relative()) path = launch.relative_to / path;
        return executable(path) ? std::optional(path) : std::nullopt;
    }
    std::string_view dirs = kForeignServerPath;
    while (!dirs.empty()) {
        const std::size_t colon = dirs.find(':');
        const std::filesystem::path candidate = std::filesystem::path(dirs.substr(0, colon)) / launch.command;
        if (executable(candidate)) return candidate;
        if (colon == std::string_view::npos) break;
        dirs.remove_prefix(colon + 1);
    }
    return std::nullopt;
}

Error start_failed(const ForeignLaunch& launch, std::string message) {
    Error error{errors::kRunnerStartFailed, std::move(message)};
    error.details["server"] = launch.server;
    error.details["command"] = launch.command;
    return error;
}

}  // namespace

Result<std::unique_ptr<ForeignProcess>> ForeignProcess::start(const ForeignLaunch& launch) {
    const auto program = resolve_program(launch);
    if (!program) {
        return start_failed(
            launch, "the command of MCP server '" + launch.server + "', \"" + launch.command +
                        "\", is not an executable file" +
                        (launch.command.find('/') == std::string::npos ? std::string(" in ") + kForeignServerPath
                                                                       : std::string()) +
                        "; install it, or give its absolute path in `command`");
    }
    const bool sandboxed = !launch.runner.empty();
    // in, out, err: the server's stdio; report: the runner's fd 3 (server mode only).
    int pipes[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
    auto close_all = [&pipes] {
        for (auto& pair : pipes)
            for (int& fd : pair)
                if (fd >= 0) ::close(std::exchange(fd, -1));
    };
    for (int i = 0; i < (sandboxed ? 4 : 3); ++i) {
        // The report is in runner frames, which travel over a socket (runner_protocol.hpp).
        const int made =
            i == 3 ? ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pipes[i]) : ::pipe2(pipes[i], O_CLOEXEC);
        if (made != 0) {
            const int failed = errno;
            close_all();
            return start_failed(launch, std::string("no pipe: ") + std::strerror(failed));
        }
    }
    auto& [in, out, err, report] = pipes;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    if (sandboxed) posix_spawn_file_actions_adddup2(&actions, report[1], 3);
    // Every other descriptor is closed, whether the daemon marked it close-on-exec or not.
    posix_spawn_file_actions_addclosefrom_np(&actions, sandboxed ? 4 : 3);
    if (!launch.working_directory.empty())
        posix_spawn_file_actions_addchdir_np(&actions, launch.working_directory.c_str());
    std::vector<std::string> argv_strings;
    if (sandboxed) {
        argv_strings = {launch.runner.string(), "--exec-server", "--server", launch.server};
        argv_strings.insert(argv_strings.end(), launch.runner_args.begin(), launch.runner_args.end());
        // Its own program, where the system directories do not already hold it.
        const std::string dir = program->parent_path().string();
        const bool system = std::any_of(
            std::begin(kSystemProgramDirs), std::end(kSystemProgramDirs),
            [&](std::string_view root) { return dir == root || (dir.starts_with(root) && dir[root.size()] == '/'); });
        if (!system) argv_strings.insert(argv_strings.end(), {"--read-only", dir});
        if (!launch.working_directory.empty())
            argv_strings.insert(argv_strings.end(), {"--cwd", launch.working_directory.string()});
        argv_strings.emplace_back("--");
    }
    argv_strings.push_back(program->string());
    argv_strings.insert(argv_strings.end(), launch.args.begin(), launch.args.end());
    std::vector<std::string> env_strings{
        std::string("PATH=") + kForeignServerPath, "LANG=C.UTF-8",
        "HOME=" + (launch.working_directory.empty() ? std::string("/nonexistent") : launch.working_directory.string())};
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"})
        if (const char* value = std::getenv(name)) env_strings.push_back(std::string(name) + "=" + value);
    for (const auto& [name, value] : launch.env) {
        if (name == "HOME") std::erase_if(env_strings, [](const std::string& e) { return e.starts_with("HOME="); });
        env_strings.push_back(name + "=" + value);
    }
    pid_t pid = 0;
    const std::string started = sandboxed ? launch.runner.string() : program->string();
    const int spawned = spawn_in_own_session(pid, started, actions, std::move(argv_strings), std::move(env_strings));
    posix_spawn_file_actions_destroy(&actions);
    for (int* fd : {&in[0], &out[1], &err[1], &report[1]})
        if (*fd >= 0) ::close(std::exchange(*fd, -1));
    if (spawned != 0) {
        close_all();
        return start_failed(launch, "cannot start MCP server '" + launch.server + "' (" + started +
                                        "): " + std::strerror(spawned) +
                                        "; check the command and working_directory of its declaration");
    }
    RunnerOutput::shared().watch(std::exchange(err[0], -1), launch.server, "-", launch.redact_output);
    std::unique_ptr<ForeignProcess> process(
        new ForeignProcess(pid, std::exchange(in[1], -1), std::exchange(out[0], -1)));
    process->cgroup_leaf_ = launch.cgroup_leaf;
    process->cgroup_pids_leaf_ = launch.cgroup_pids_leaf;
    if (sandboxed) {
        const int report_fd = std::exchange(report[0], -1);
        std::optional<Error> refused = process->await_sandbox(launch, report_fd);
        ::close(report_fd);
        if (refused) return std::move(*refused);  // the process is ended and reaped by its destructor
    }
    return process;
}

std::optional<Error> ForeignProcess::await_sandbox(const ForeignLaunch& launch, int report_fd) {
    const auto deadline = std::chrono::steady_clock::now() + launch.sandbox_timeout;
    bool ready = false;
    while (true) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd waiting{report_fd, POLLIN, 0};
        const int polled = left.count() > 0 ? ::poll(&waiting, 1, static_cast<int>(left.count())) : 0;
        if (polled < 0 && errno == EINTR) continue;
        if (polled <= 0)
            return start_failed(launch, "the sandbox of MCP server '" + launch.server + "' was not in place within " +
                                            std::to_string(launch.sandbox_timeout.count()) +
                                            " ms (limits.startup_timeout_ms); the machine may be overloaded");
        wire::Frame frame;
        const wire::ReadStatus status = wire::read_frame(report_fd, 1 << 20, frame);
        if (status != wire::ReadStatus::frame) break;  // closed: execve succeeded, or the runner died
        const auto type = static_cast<wire::FrameType>(frame.header.type);
        if (type == wire::FrameType::load_failed) return wire::decode_error(frame.payload);
        if (type == wire::FrameType::ready) {
            if (auto info = wire::decode_ready(frame.payload)) sandbox_report_ = std::move(info->sandbox_json);
            ready = true;
        }
    }
    if (ready) return std::nullopt;
    const std::string how = wait_for_end(std::chrono::milliseconds(500));
    return start_failed(launch, "the sandbox runner of MCP server '" + launch.server + "' " +
                                    (how.empty() ? std::string("closed its report without one") : how) +
                                    " before the server started; see the log for its output");
}

ForeignProcess::~ForeignProcess() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stop(std::chrono::milliseconds(2000));
    remove_cgroup_leaves();
}

std::string ForeignProcess::wait_for_end(std::chrono::milliseconds limit) {
    std::lock_guard lock(mutex_);
    if (reaped_) return ended_;
    const auto until = std::chrono::steady_clock::now() + limit;
    while (true) {
        int status = 0;
        const pid_t done = ::waitpid(pid_, &status, WNOHANG);
        if (done == pid_ || (done < 0 && errno == ECHILD)) {
            reaped_ = true;
            ended_ = done == pid_ ? describe_status(status) : "ended";
            return ended_;
        }
        if (std::chrono::steady_clock::now() >= until) return "";
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void ForeignProcess::stop(std::chrono::milliseconds grace) {
    // Its stdin is closed first (by the session): a server that ends on EOF has a moment to do so.
    if (!wait_for_end(std::chrono::milliseconds(100)).empty()) return;
    ::kill(-pid_, SIGTERM);
    if (!wait_for_end(grace).empty()) return;
    ::kill(-pid_, SIGKILL);
    wait_for_end(std::chrono::seconds(5));
}

void ForeignProcess::remove_cgroup_leaves() {
    RunnerCgroups::remove_leaf(cgroup_leaf_);
    RunnerCgroups::remove_leaf(cgroup_pids_leaf_);
}

}  // namespace skillhost::plugin
