#include "support/exec_args.hpp"

extern char** environ;

namespace skillhost::testing {

ExecArgs::ExecArgs(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env)
    : arg_strings_(argv) {
    for (char** e = environ; *e; ++e) {
        std::string entry(*e);
        auto eq = entry.find('=');
        if (eq != std::string::npos && env.count(entry.substr(0, eq))) continue;
        env_strings_.push_back(std::move(entry));
    }
    for (const auto& [k, v] : env) env_strings_.push_back(k + "=" + v);
    for (auto& s : arg_strings_) argv_.push_back(s.data());
    argv_.push_back(nullptr);
    for (auto& s : env_strings_) envp_.push_back(s.data());
    envp_.push_back(nullptr);
}

}  // namespace skillhost::testing
