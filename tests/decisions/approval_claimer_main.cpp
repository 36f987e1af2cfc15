// Child process for the crash-durability test: claims every pending approval it can, "executes"
// each by appending "<id> <pid>" to an effects log, then records the outcome. With --hold-after N it
// tells the test on file descriptor 3 when it is inside the execution of its Nth claim and waits
// there, so the test's SIGKILL lands between claim and completion every time, not by luck.
#include "decisions/approval_queue.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

int main(int argc, char** argv) {
    using namespace skillhost::decisions;
    // --stop-after-claim: claim one approval, record its effect and exit without completing it,
    // as a host that dies mid-execution would.
    const bool stop_after_claim = argc == 4 && std::string(argv[3]) == "--stop-after-claim";
    // --hold-after N: after the Nth claim's effect, write "claimed <id>\n" to fd 3 and wait to be killed.
    const bool hold = argc == 5 && std::string(argv[3]) == "--hold-after";
    const long hold_after = hold ? std::strtol(argv[4], nullptr, 10) : 0;
    if ((argc != 3 && !stop_after_claim && !hold) || (hold && hold_after < 1)) {
        std::fprintf(stderr, "usage: %s DATABASE|postgres:URL EFFECTS_LOG [--stop-after-claim | --hold-after N]\n",
                     argv[0]);
        return 2;
    }
    long claims = 0;
    // DATABASE: a SQLite file, or "postgres:" followed by a connection string.
    const std::string database = argv[1];
    const auto location = database.starts_with("postgres:")
                              ? skillhost::db::StorageLocation::postgres(database.substr(9))
                              : skillhost::db::StorageLocation::sqlite(database);
    auto queue = ApprovalQueue::open(location);
    if (!queue) {
        std::fprintf(stderr, "%s\n", queue.error().message.c_str());
        return 2;
    }
    const int effects = ::open(argv[2], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (effects < 0) return 2;
    std::mt19937 random(static_cast<unsigned>(getpid()));
    const Resolver approver{"owner", skillhost::auth::Role::owner};
    while (true) {
        auto pending = (*queue)->list({std::nullopt, {ApprovalState::pending}, 0});
        if (!pending) {
            std::fprintf(stderr, "%s\n", pending.error().message.c_str());
            return 2;
        }
        if (pending->empty()) return 0;
        for (const auto& record : *pending) {
            auto claim = (*queue)->claim_for_execution(record.id, approver);
            if (!claim) {
                if (claim.error().code == "APPROVAL_ALREADY_RESOLVED") continue;
                std::fprintf(stderr, "%s\n", claim.error().message.c_str());
                return 2;
            }
            const std::string line = record.id + " " + std::to_string(getpid()) + "\n";
            if (::write(effects, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 2;
            if (stop_after_claim) _exit(0);
            if (hold && ++claims == hold_after) {
                const std::string claimed = "claimed " + record.id + "\n";
                if (::write(3, claimed.data(), claimed.size()) != static_cast<ssize_t>(claimed.size())) return 2;
                while (true) ::pause();  // inside the execution until the test's SIGKILL
            }
            // Widen the window between the effect and recording it, where a kill hurts most.
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(random() % 400);
            while (std::chrono::steady_clock::now() < until) {}
            auto done = (*queue)->complete(record.id, true, boost::json::object{{"by", getpid()}});
            if (!done) {
                std::fprintf(stderr, "%s\n", done.error().message.c_str());
                return 2;
            }
        }
    }
}
