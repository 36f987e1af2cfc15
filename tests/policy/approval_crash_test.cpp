#include "policy/approval_queue.hpp"
#include "policy_test_support.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <iostream>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace skillhost::policy {
namespace {

using testing::TempDir;

pid_t spawn_claimer(const std::filesystem::path& db, const std::filesystem::path& effects, bool stop_after_claim = false) {
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

TEST(ApprovalCrashDurability, AClaimWhoseProcessDiedIsMarkedInterruptedAndNeverReRun) {
    TempDir dir;
    const auto db = dir.path() / "skillhost.db";
    const auto effects = dir.path() / "effects.log";
    std::string id;
    {
        auto queue = ApprovalQueue::open(db);
        ASSERT_TRUE(queue.ok()) << queue.error().message;
        id = (*queue)->enqueue({"bob", "fs_write", boost::json::object{{"n", 1}}, Requester::direct(), "write"})->id;
    }
    const pid_t child = spawn_claimer(db, effects, true);
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
    EXPECT_EQ((*queue)->claim_for_execution(id, {"owner", Role::owner}).error().code, "APPROVAL_ALREADY_RESOLVED");
    EXPECT_EQ((*queue)->complete(id, true, nullptr).error().code, "APPROVAL_NOT_CLAIMED");
    EXPECT_TRUE((*(*queue)->recover_interrupted()).empty());  // recovery is idempotent
}

// Kills claimer processes with SIGKILL at random moments, restarts, and checks after every
// restart that no approval ran twice and every approval is in a state it can legally be in.
TEST(ApprovalCrashDurability, SigkillAtRandomMomentsNeverRunsAnApprovalTwice) {
    TempDir dir;
    const auto db = dir.path() / "skillhost.db";
    const auto effects = dir.path() / "effects.log";
    constexpr int approvals = 60;
    {
        auto queue = ApprovalQueue::open(db);
        ASSERT_TRUE(queue.ok()) << queue.error().message;
        for (int i = 0; i < approvals; ++i) {
            ApprovalRequest request{"bob", "fs_write", boost::json::object{{"n", i}}, Requester::direct(), "write #" + std::to_string(i)};
            ASSERT_TRUE((*queue)->enqueue(request).ok());
        }
    }
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    int interrupted_total = 0;
    const auto started = std::chrono::steady_clock::now();
    for (int round = 0; round < 12; ++round) {
        const pid_t a = spawn_claimer(db, effects);
        const pid_t b = spawn_claimer(db, effects);
        ASSERT_GT(a, 0);
        ASSERT_GT(b, 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + random() % 40));
        kill(a, SIGKILL);
        kill(b, SIGKILL);
        int status = 0;
        waitpid(a, &status, 0);
        waitpid(b, &status, 0);

        // "Restart": reopening recovers claims whose process died.
        auto queue = ApprovalQueue::open(db);
        ASSERT_TRUE(queue.ok()) << queue.error().message;
        const auto ran = executions(effects);
        auto all = (*queue)->list();
        ASSERT_TRUE(all.ok());
        ASSERT_EQ(all->size(), static_cast<std::size_t>(approvals));
        int pending = 0;
        interrupted_total = 0;
        for (const auto& record : *all) {
            const int times = ran.count(record.id) ? ran.at(record.id) : 0;
            ASSERT_LE(times, 1) << record.id << " executed twice";
            switch (record.state) {
                case ApprovalState::pending:
                    ASSERT_EQ(times, 0) << record.id << " ran but is still pending";
                    ++pending;
                    break;
                case ApprovalState::executed:
                    ASSERT_EQ(times, 1) << record.id << " is executed but never ran";
                    break;
                case ApprovalState::failed:
                    // Killed between claim and complete: it may or may not have had its effect.
                    ASSERT_EQ(record.reason, interrupted_reason);
                    ++interrupted_total;
                    break;
                default:
                    FAIL() << record.id << " is " << to_string(record.state) << " after a restart";
            }
        }
        if (pending == 0) break;
    }
    // Let one claimer finish whatever is left, undisturbed.
    const pid_t last = spawn_claimer(db, effects);
    int status = 0;
    waitpid(last, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    auto queue = ApprovalQueue::open(db);
    ASSERT_TRUE(queue.ok());
    const auto ran = executions(effects);
    auto final_state = (*queue)->list();
    ASSERT_TRUE(final_state.ok());
    for (const auto& record : *final_state) {
        const int times = ran.count(record.id) ? ran.at(record.id) : 0;
        EXPECT_LE(times, 1) << record.id;
        EXPECT_TRUE(record.state == ApprovalState::executed || record.state == ApprovalState::failed)
            << record.id << " is " << to_string(record.state);
        // An interrupted approval is never re-run, by anyone.
        if (record.state == ApprovalState::failed) {
            EXPECT_EQ((*queue)->claim_for_execution(record.id, {"owner", Role::owner}).error().code,
                      "APPROVAL_ALREADY_RESOLVED");
        }
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
    std::cout << "interrupted approvals after the kills: " << interrupted_total << "\n";
}

}  // namespace
}  // namespace skillhost::policy
