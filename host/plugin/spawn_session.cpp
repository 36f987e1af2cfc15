#include "plugin/spawn_session.hpp"

#include <csignal>

namespace skillhost::plugin {
namespace {

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace

int spawn_in_own_session(pid_t& pid, const std::string& program, const posix_spawn_file_actions_t& actions,
                         std::vector<std::string> argv, std::vector<std::string> env) {
    std::vector<char*> argv_pointers = c_strings(argv);
    std::vector<char*> env_pointers = c_strings(env);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
    const int spawned =
        ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv_pointers.data(), env_pointers.data());
    posix_spawnattr_destroy(&attributes);
    return spawned;
}

}  // namespace skillhost::plugin
