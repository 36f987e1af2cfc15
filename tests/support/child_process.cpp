#include "support/child_process.hpp"

#include "support/exec_args.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace skillhost::testing {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC))
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    ExecArgs exec_args(argv, env);

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
        dup2(in_pipe[0], 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        execve(exec_args.argv()[0], exec_args.argv(), exec_args.envp());
        _exit(127);
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    in_ = in_pipe[1];
    out_ = out_pipe[0];
    err_ = err_pipe[0];
    fcntl(err_, F_SETFL, fcntl(err_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
    if (!exited_ && pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    for (int fd : {in_, out_, err_})
        if (fd >= 0) close(fd);
}

void ChildProcess::drain_stderr() {
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(err_, buf, sizeof buf);
        if (n <= 0) break;
        err_buf_.append(buf, static_cast<std::size_t>(n));
    }
}

std::string ChildProcess::stderr_text() {
    drain_stderr();
    return err_buf_;
}

std::optional<std::string> ChildProcess::read_line(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (auto nl = out_buf_.find('\n'); nl != std::string::npos) {
            std::string line = out_buf_.substr(0, nl);
            out_buf_.erase(0, nl + 1);
            return line;
        }
        drain_stderr();
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0 || out_ < 0) return std::nullopt;
        pollfd p{out_, POLLIN, 0};
        int r = poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100)));
        if (r <= 0) continue;
        char buf[4096];
        ssize_t n = ::read(out_, buf, sizeof buf);
        if (n <= 0) {
            close(out_);
            out_ = -1;
            continue;
        }
        out_buf_.append(buf, static_cast<std::size_t>(n));
    }
}

std::optional<std::string> ChildProcess::wait_for_line(const std::string& needle, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        auto line = read_line(left);
        if (!line) return std::nullopt;
        if (line->find(needle) != std::string::npos) return line;
    }
}

void ChildProcess::write(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(in_, text.data() + done, text.size() - done);
        if (n <= 0) throw std::runtime_error("write to child stdin failed");
        done += static_cast<std::size_t>(n);
    }
}

void ChildProcess::close_stdin() {
    if (in_ >= 0) close(in_);
    in_ = -1;
}

void ChildProcess::signal(int sig) {
    if (!exited_) kill(pid_, sig);
}

int ChildProcess::wait(std::chrono::milliseconds timeout) {
    if (exited_) return exit_code_;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid_, &status, WNOHANG);
        if (r == pid_) break;
        if (std::chrono::steady_clock::now() >= deadline) {
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            exited_ = true;
            exit_code_ = -1;
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    exited_ = true;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    drain_stderr();
    return exit_code_;
}

}  // namespace skillhost::testing
