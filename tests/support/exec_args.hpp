// argv and envp for execve: the current environment with `env` added (overriding), kept alive as
// long as this object.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace skillhost::testing {

class ExecArgs {
public:
    ExecArgs(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);
    char* const* argv() { return argv_.data(); }
    char* const* envp() { return envp_.data(); }

private:
    std::vector<std::string> arg_strings_, env_strings_;
    std::vector<char*> argv_, envp_;
};

}  // namespace skillhost::testing
