#include "plugin/bounded_command.hpp"

#include "plugin/spawn_session.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>

extern char** environ;

namespace skillhost::plugin {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
    int read = -1, write = -1;
    ~Pipe() {
        if (read >= 0) ::close(read);
        if (write >= 0) ::close(write);
    }
};

// Appends what `fd` has to `kept` up to `limit` (the rest is dropped); false at end of file.
bool drain(int fd, std::string& kept, bool& truncated, std::size_t limit) {
    std::array<char, 16384> buffer{};
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) return errno == EINTR || errno == EAGAIN;
    if (got == 0) return false;
    const std::size_t room = kept.size() < limit ? limit - kept.size() : 0;
    kept.append(buffer.data(), std::min(room, static_cast<std::size_t>(got)));
    if (static_cast<std::size_t>(got) > room) truncated = true;
    return true;
}

}  // namespace

std::optional<std::filesystem::path> find_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    const std::string search = path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
    for (std::size_t start = 0; start <= search.size();) {
        std::size_t end = search.find(':', start);
        if (end == std::string::npos) end = search.size();
        const std::string dir = search.substr(start, end - start);
        start = end + 1;
        if (dir.empty() || dir.front() != '/') continue;  // a relative entry would depend on the working directory
        const std::filesystem::path candidate = std::filesystem::path(dir) / name;
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

Result<CommandOutcome> run_bounded_command(const BoundedCommand& command, ErrorCode code) {
    Pipe out, err;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Error{code, std::string("cannot make a pipe: ") + std::strerror(errno)};
    out.read = fds[0];
    out.write = fds[1];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Error{code, std::string("cannot make a pipe: ") + std::strerror(errno)};
    err.read = fds[0];
    err.write = fds[1];
    const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (null_in >= 0) posix_spawn_file_actions_adddup2(&actions, null_in, 0);
    posix_spawn_file_actions_adddup2(&actions, out.write, 1);
    posix_spawn_file_actions_adddup2(&actions, err.write, 2);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (!command.working_directory.empty())
        posix_spawn_file_actions_addchdir_np(&actions, command.working_directory.c_str());
    std::vector<std::string> argv{command.program.string()};
    argv.insert(argv.end(), command.args.begin(), command.args.end());
    std::vector<std::string> env;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) env.emplace_back(*entry);
    pid_t pid = 0;
    const int spawned = spawn_in_own_session(pid, command.program.string(), actions, std::move(argv), std::move(env));
    posix_spawn_file_actions_destroy(&actions);
    if (null_in >= 0) ::close(null_in);
    if (spawned != 0) return Error{code, "cannot start " + command.program.string() + ": " + std::strerror(spawned)};
    ::close(out.write);
    ::close(err.write);
    out.write = err.write = -1;

    CommandOutcome outcome;
    const auto deadline = Clock::now() + command.timeout;
    bool out_open = true, err_open = true;
    while (out_open || err_open) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            outcome.timed_out = true;
            break;
        }
        std::array<pollfd, 2> waiting{pollfd{out_open ? out.read : -1, POLLIN, 0},
                                      pollfd{err_open ? err.read : -1, POLLIN, 0}};
        const int polled = ::poll(waiting.data(), waiting.size(), static_cast<int>(left.count()));
        if (polled < 0 && errno == EINTR) continue;
        if (polled < 0) break;
        if (out_open && waiting[0].revents != 0)
            out_open = drain(out.read, outcome.out, outcome.out_truncated, command.max_output_bytes);
        if (err_open && waiting[1].revents != 0)
            err_open = drain(err.read, outcome.err, outcome.err_truncated, command.max_output_bytes);
    }
    // Its own session: whatever it started goes with it.
    if (outcome.timed_out) ::kill(-pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return outcome;
}

}  // namespace skillhost::plugin
