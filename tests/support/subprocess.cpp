#include "support/subprocess.hpp"

#include "support/exec_args.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace skillhost::testing {

ProcessResult SkillhostCommand::operator()(std::vector<std::string> args) const {
    args.insert(args.begin(), binary);
    args.insert(args.end(), {"--config", config, "--home", home});
    return run_process(args, env, {}, timeout_ms);
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                          const std::string& input, int timeout_ms) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC))
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

    ExecArgs exec_args(argv, env);

    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        dup2(in_pipe[0], 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        execve(exec_args.argv()[0], exec_args.argv(), exec_args.envp());
        _exit(127);
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (!input.empty()) {
        ssize_t ignored = write(in_pipe[1], input.data(), input.size());
        (void)ignored;
    }
    close(in_pipe[1]);

    ProcessResult result;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    bool killed = false;
    char buf[65536];
    while (open_fds > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0 && !killed) {
            kill(pid, SIGKILL);
            killed = true;
        }
        int n = poll(fds, 2, killed ? 1000 : static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 && killed) break;
        for (auto& p : fds) {
            if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t r = read(p.fd, buf, sizeof buf);
            if (r > 0) {
                (p.fd == out_pipe[0] ? result.out : result.err).append(buf, static_cast<std::size_t>(r));
            } else {
                close(p.fd);
                p.fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& p : fds)
        if (p.fd >= 0) close(p.fd);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
}

}  // namespace skillhost::testing
