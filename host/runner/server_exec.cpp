#include "runner/server_exec.hpp"

#include "plugin/error_codes.hpp"
#include "plugin/runner_protocol.hpp"
#include "runner/runner_args.hpp"
#include "runner/sandbox.hpp"

#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace skillhost::runner {
namespace {

constexpr int report_fd = 3;

[[noreturn]] void refuse(const Error& error) {
    plugin::wire::write_frame(report_fd, plugin::wire::FrameType::load_failed, 0, plugin::wire::encode(error));
    std::_Exit(127);
}

Error refusal(std::string message) {
    return Error{errors::kRunnerStartFailed, std::move(message)};
}

}  // namespace

int exec_server(int argc, char** argv) {
    // The server's stdin, stdout and stderr are the host's pipes; nothing else the host had open.
    ::syscall(SYS_close_range, report_fd + 1, ~0U, 0);
    if (::fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) return 2;
    const RunnerArgs args(argc, argv, 2);
    const std::vector<std::string>& program = args.program();
    const std::string server = args.text("server");
    if (program.empty() || program.front().empty() || program.front().front() != '/')
        refuse(refusal("skillhost-runner --exec-server needs `-- /absolute/program [args...]`"));

    SandboxRequest sandbox = sandbox_request(args);
    sandbox.exec = true;
    sandbox.host_fd = report_fd;
    Result<boost::json::object> enforced = apply_sandbox(sandbox);
    if (!enforced) {
        Error error = std::move(enforced.error());
        error.details["server"] = server;
        refuse(error);
    }
    if (const std::string cwd = args.text("cwd"); !cwd.empty() && ::chdir(cwd.c_str()) != 0) {
        Error error = refusal("the working directory of MCP server '" + server + "', " + cwd +
                              ", is not in its sandbox (" + std::strerror(errno) +
                              "); list it under `files:` in the declaration, or leave working_directory unset");
        error.details["server"] = server;
        refuse(error);
    }

    plugin::wire::ReadyInfo ready;
    ready.sandbox_json = boost::json::serialize(enforced.value());
    plugin::wire::write_frame(report_fd, plugin::wire::FrameType::ready, 0, plugin::wire::encode(ready));

    std::vector<char*> pointers;
    pointers.reserve(program.size() + 1);
    for (const std::string& part : program) pointers.push_back(const_cast<char*>(part.c_str()));
    pointers.push_back(nullptr);
    ::execve(pointers.front(), pointers.data(), environ);
    const int failed = errno;
    Error error = refusal("the sandbox of MCP server '" + server + "' cannot execute " + program.front() + " (" +
                          std::strerror(failed) +
                          "): a server's program must be under /usr, /lib or /opt, or in a directory listed under "
                          "`files:` in its declaration; a writable directory never may hold it");
    error.details["server"] = server;
    error.details["program"] = program.front();
    error.details["errno"] = failed;
    refuse(error);
}

}  // namespace skillhost::runner
