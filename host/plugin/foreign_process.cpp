#include "plugin/foreign_process.hpp"

#include "plugin/error_codes.hpp"
#include "plugin/runner_connection.hpp"
#include "plugin/runner_output.hpp"
#include "plugin/spawn_session.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace skillhost::plugin {
namespace {

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
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0) return start_failed(launch, std::string("no pipe: ") + std::strerror(errno));
    if (::pipe2(out, O_CLOEXEC) != 0) {
        ::close(in[0]), ::close(in[1]);
        return start_failed(launch, std::string("no pipe: ") + std::strerror(errno));
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
        return start_failed(launch, std::string("no pipe: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    // Every other descriptor is closed, whether the daemon marked it close-on-exec or not.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (!launch.working_directory.empty())
        posix_spawn_file_actions_addchdir_np(&actions, launch.working_directory.c_str());
    std::vector<std::string> argv_strings{program->string()};
    argv_strings.insert(argv_strings.end(), launch.args.begin(), launch.args.end());
    std::vector<std::string> env_strings{
        std::string("PATH=") + kForeignServerPath, "LANG=C.UTF-8",
        "HOME=" + (launch.working_directory.empty() ? std::string("/nonexistent") : launch.working_directory.string())};
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"})
        if (const char* value = std::getenv(name)) env_strings.push_back(std::string(name) + "=" + value);
    for (const auto& [name, value] : launch.env) env_strings.push_back(name + "=" + value);
    pid_t pid = 0;
    const int spawned =
        spawn_in_own_session(pid, program->string(), actions, std::move(argv_strings), std::move(env_strings));
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]), ::close(out[1]), ::close(err[1]);
    if (spawned != 0) {
        ::close(in[1]), ::close(out[0]), ::close(err[0]);
        return start_failed(launch, "cannot start MCP server '" + launch.server + "' (" + program->string() +
                                        "): " + std::strerror(spawned) +
                                        "; check the command and working_directory of its declaration");
    }
    RunnerOutput::shared().watch(err[0], launch.server, "-");
    return std::unique_ptr<ForeignProcess>(new ForeignProcess(pid, in[1], out[0]));
}

ForeignProcess::~ForeignProcess() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stop(std::chrono::milliseconds(2000));
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

}  // namespace skillhost::plugin
