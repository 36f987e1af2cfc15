#include "decisions/approval_queue.hpp"
#include "support/unit_testing.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <poll.h>
#include <random>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace skillhost::decisions {
namespace {

// How the claimer is told where the queue lives: the SQLite file, or "postgres:" and a connection string.
std::string database_argument(const db::StorageLocation& location) {
    return location.backend == db::StorageBackend::postgres ? "postgres:" + location.postgres_url
                                                            : location.sqlite_file.string();
}

pid_t spawn_claimer(const std::string& db, const std::filesystem::path& effects, bool stop_after_claim = false) {
    const pid_t pid = fork();
    if (pid == 0) {
        execl(SKILLHOST_APPROVAL_CLAIMER, SKILLHOST_APPROVAL_CLAIMER, db.c_str(), effects.c_str(),
              stop_after_claim ? "--stop-after-claim" : static_cast<char*>(nullptr), static_cast<char*>(nullptr));
        _exit(127);
    }
    return pid;
}

// id -> how many times it was executed, from the claimers' effects log.
std::map<std::string, int> executions(const std::filesystem::path& effects) {
    std::map<std::string, int> count;
    std::ifstream in(effects);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string id;
        if (fields >> id) ++count[id];
    }
    return count;
}

// Both backends: the claimers and the "restarted" host share one SQLite file or one PostgreSQL database.
class ApprovalCrashDurability : public ::skillhost::testing::OnEachBackend {};
SKILLHOST_ON_EACH_BACKEND(ApprovalCrashDurability);

TEST_P(ApprovalCrashDurability, AClaimWhoseProcessDiedIsMarkedInterruptedAndNeverReRun) {
    const auto db = location();
    const auto effects = home.path() / "effects.log";
    std::string id;
    {
        auto queue = ApprovalQueue::open(db);
        ASSERT_TRUE(queue.ok()) << queue.error().message;
        id = (*queue)
                 ->enqueue({{"bob", "fs_write", boost::json::object{{"n", 1}}, auth::Requester::direct()}, "write"})
                 ->id;
    }
    const pid_t child = spawn_claimer(database_argument(db), effects, true);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_EQ(executions(effects)[id], 1);

    auto queue = ApprovalQueue::open(db);  // the restart
    ASSERT_TRUE(queue.ok());
    const auto record = (*queue)->get(id);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->state, ApprovalState::failed);
    EXPECT_EQ(record->reason, "interrupted: the host stopped while executing; re-request the action");
    EXPECT_EQ(record->resolved_by, "owner");
    EXPECT_TRUE(record->completed_at.has_value());
    EXPECT_EQ((*queue)->claim_for_execution(id, {"owner", auth::Role::owner}).error().code,
              "APPROVAL_ALREADY_RESOLVED");
    EXPECT_EQ((*queue)->complete(id, true, nullptr).error().code, "APPROVAL_NOT_CLAIMED");
    EXPECT_TRUE((*(*queue)->recover_interrupted()).empty());  // recovery is idempotent
}

// Several instances judge a claimer by its announcement, not by whether a process with its pid runs
// on this machine: a claim whose instance is gone is recovered though its process identity (this
// very process here) looks alive, and a claim whose instance is alive is left alone.
TEST_P(ApprovalCrashDurability, TheCallersLivenessCheckDecidesWhichClaimsAreInterrupted) {
    auto queue = ApprovalQueue::open(location());
    ASSERT_TRUE(queue.ok()) << queue.error().message;
    const std::string gone =
        (*queue)->enqueue({{"bob", "fs_write", boost::json::object{{"n", 1}}, auth::Requester::direct()}, "write"})->id;
    const std::string alive =
        (*queue)->enqueue({{"bob", "fs_write", boost::json::object{{"n", 2}}, auth::Requester::direct()}, "write"})->id;
    ASSERT_TRUE((*queue)->claim_for_execution(gone, {"owner", auth::Role::owner}).ok());
    ASSERT_TRUE((*queue)->claim_for_execution(alive, {"owner", auth::Role::owner}).ok());
    const ProcessIdentity self = current_process_identity();
    // The first claim is taken as made by an instance whose announcement lapsed.
    bool first = true;
    auto recovered = (*queue)->recover_interrupted([&](const ProcessIdentity& claimer) {
        EXPECT_EQ(claimer.host, self.host);
        EXPECT_EQ(claimer.pid, self.pid);
        const bool is_alive = !first;
        first = false;
        return is_alive;
    });
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    ASSERT_EQ(recovered->size(), 1u);
    const std::string& failed = recovered->front();
    const std::string& kept = failed == gone ? alive : gone;
    EXPECT_EQ((*queue)->get(failed)->state, ApprovalState::failed);
    EXPECT_EQ((*queue)->get(failed)->reason, interrupted_reason);
    EXPECT_EQ((*queue)->get(kept)->state, ApprovalState::approved);
    // The process-identity check (the default) sees this process alive: nothing more is recovered.
    EXPECT_TRUE((*queue)->recover_interrupted()->empty());
    EXPECT_TRUE((*queue)->complete(kept, true, nullptr).ok());
}

// A claimer that stops inside the execution of its `hold_after`th claim and says so on a pipe.
struct HeldClaimer {
    pid_t pid = -1;
    int claimed_fd = -1;  // read end: "claimed <id>\n", or end of file if it ran out of work
};

HeldClaimer spawn_held_claimer(const std::string& db, const std::filesystem::path& effects, int hold_after) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return {};
    const std::string n = std::to_string(hold_after);
    const pid_t pid = fork();
    if (pid == 0) {
        ::dup2(fds[1], 3);  // dup2 clears O_CLOEXEC on the copy
        execl(SKILLHOST_APPROVAL_CLAIMER, SKILLHOST_APPROVAL_CLAIMER, db.c_str(), effects.c_str(), "--hold-after",
              n.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    ::close(fds[1]);
    return {pid, fds[0]};
}

// What the claimer wrote before it held or exited ("" at end of file); waits up to a minute.
std::string read_claimed(int fd) {
    std::string text;
    char buffer[256];
    while (text.find('\n') == std::string::npos) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 60000) != 1) return "timed out";
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    return text;
}

// Two claimers at a time run a random number of approvals each and are SIGKILLed inside the
// execution of the next one (they signal when they are there). After every restart: no approval
// ran twice, every approval is in a state it can legally be in, and exactly the approvals the
// killed claimers held are marked interrupted.
TEST_P(ApprovalCrashDurability, SigkillInsideExecutionNeverRunsAnApprovalTwice) {
    const auto db = location();
    const auto effects = home.path() / "effects.log";
    constexpr int approvals = 60;
    {
        auto queue = ApprovalQueue::open(db);
        ASSERT_TRUE(queue.ok()) << queue.error().message;
        for (int i = 0; i < approvals; ++i) {
            ApprovalRequest request{{"bob", "fs_write", boost::json::object{{"n", i}}, auth::Requester::direct()},
                                    "write #" + std::to_string(i)};
            ASSERT_TRUE((*queue)->enqueue(request).ok());
        }
    }
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    std::set<std::string> killed_inside;  // ids the killed claimers held
    int kills = 0;
    for (int round = 0; round < 12; ++round) {
        HeldClaimer claimers[2] = {
            spawn_held_claimer(database_argument(db), effects, 1 + static_cast<int>(random() % 4)),
            spawn_held_claimer(database_argument(db), effects, 1 + static_cast<int>(random() % 4))};
        for (auto& c : claimers) {
            ASSERT_GT(c.pid, 0);
            const std::string said = read_claimed(c.claimed_fd);
            ::close(c.claimed_fd);
            int status = 0;
            if (said.rfind("claimed ", 0) == 0) {
                ASSERT_EQ(kill(c.pid, SIGKILL), 0);
                ASSERT_EQ(waitpid(c.pid, &status, 0), c.pid);
                EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
                killed_inside.insert(said.substr(8, said.size() - 9));
                ++kills;
            } else {
                // It found nothing left to claim before its turn to hold: it must have finished cleanly.
                ASSERT_EQ(said, "") << "the claimer neither held a claim nor exited";
                ASSERT_EQ(waitpid(c.pid, &status, 0), c.pid);
                EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
            }
        }

        // "Restart": reopening recovers claims whose process died.
        auto queue = ApprovalQueue::open(db);
        ASSERT_TRUE(queue.ok()) << queue.error().message;
        const auto ran = executions(effects);
        auto all = (*queue)->list();
        ASSERT_TRUE(all.ok());
        ASSERT_EQ(all->size(), static_cast<std::size_t>(approvals));
        int pending = 0;
        std::set<std::string> interrupted;
        for (const auto& record : *all) {
            const int times = ran.count(record.id) ? ran.at(record.id) : 0;
            ASSERT_LE(times, 1) << record.id << " executed twice";
            switch (record.state) {
                case ApprovalState::pending:
                    ASSERT_EQ(times, 0) << record.id << " ran but is still pending";
                    ++pending;
                    break;
                case ApprovalState::executed: ASSERT_EQ(times, 1) << record.id << " is executed but never ran"; break;
                case ApprovalState::failed:
                    // Killed between claim and complete: it had its effect, and is never re-run.
                    ASSERT_EQ(record.reason, interrupted_reason);
                    ASSERT_EQ(times, 1) << record.id << " is interrupted but never ran";
                    interrupted.insert(record.id);
                    break;
                default: FAIL() << record.id << " is " << to_string(record.state) << " after a restart";
            }
        }
        ASSERT_EQ(interrupted, killed_inside) << "round " << round;
        if (pending == 0) break;
    }
    ASSERT_GE(kills, 2) << "no claimer was ever killed inside an execution";
    // Let one claimer finish whatever is left, undisturbed.
    const pid_t last = spawn_claimer(database_argument(db), effects);
    int status = 0;
    waitpid(last, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    auto queue = ApprovalQueue::open(db);
    ASSERT_TRUE(queue.ok());
    const auto ran = executions(effects);
    auto final_state = (*queue)->list();
    ASSERT_TRUE(final_state.ok());
    std::size_t failed = 0;
    for (const auto& record : *final_state) {
        const int times = ran.count(record.id) ? ran.at(record.id) : 0;
        EXPECT_EQ(times, 1) << record.id;
        EXPECT_TRUE(record.state == ApprovalState::executed || record.state == ApprovalState::failed)
            << record.id << " is " << to_string(record.state);
        // An interrupted approval is never re-run, by anyone.
        if (record.state == ApprovalState::failed) {
            ++failed;
            EXPECT_EQ((*queue)->claim_for_execution(record.id, {"owner", auth::Role::owner}).error().code,
                      "APPROVAL_ALREADY_RESOLVED");
        }
    }
    EXPECT_EQ(failed, killed_inside.size());
    EXPECT_EQ(static_cast<int>(killed_inside.size()), kills);
}

}  // namespace
}  // namespace skillhost::decisions
