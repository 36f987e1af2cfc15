// An upgrade from the schema that kept approvals and elicitations in two tables (SQLite version 7,
// PostgreSQL version 6) to the one table of pending decisions keeps every row, in every state,
// with what only its kind has, and every run as it was; and the upgraded rows go on along the state
// machine.
#include "db/postgres_connection.hpp"
#include "db/postgres_schema.hpp"
#include "db/sqlite_connection.hpp"
#include "db/sqlite_schema.hpp"
#include "decisions/approval_queue.hpp"
#include "decisions/elicitation_queue.hpp"
#include "support/postgres_server.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>
#include <sqlite3.h>

namespace skillhost::decisions {
namespace {

namespace json = boost::json;

constexpr int kSqliteVersionWithTwoTables = 7;
constexpr int kPostgresVersionWithTwoTables = 6;

// Rows as the previous release wrote them, one of each state; the same SQL on both backends.
constexpr const char* two_table_rows[] = {
    "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms,"
    " state, requested_token) VALUES ('apr-0000000000000001', 'bob', 'fs_write', '{\"path\":\"a.md\"}', 1000,"
    " 'run:run-7', 'Write a file (fs_write): path=\"a.md\"', 4102444800000, 'pending', 'tok-1')",
    "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms,"
    " state, resolved_by, resolved_at_ms, claim_host, claim_pid, claim_start_ticks) VALUES ('apr-0000000000000002',"
    " 'bob', 'fs_write', '{}', 1000, 'user:bob', 'claimed elsewhere', 4102444800000, 'approved', 'owner', 2000,"
    " 'elsewhere', 7, 9)",
    "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms,"
    " state, resolved_by, resolved_at_ms, completed_at_ms, result) VALUES ('apr-0000000000000003', 'bob', 'fs_write',"
    " '{}', 1000, 'user:bob', 'ran', 4102444800000, 'executed', 'owner', 2000, 3000, '{\"ok\":true,\"data\":5}')",
    "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms,"
    " state, resolved_by, resolved_at_ms, reason) VALUES ('apr-0000000000000004', 'carol', 'fs_delete', '{}', 1000,"
    " 'user:carol', 'refused', 4102444800000, 'rejected', 'owner', 2000, 'not now')",
    "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms,"
    " state, resolved_at_ms, reason) VALUES ('apr-0000000000000005', 'bob', 'fs_write', '{}', 1000, 'user:bob',"
    " 'too late', 1500, 'expired', 2000, 'expired before anyone resolved it')",
    "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms,"
    " state, resolved_by, resolved_at_ms, completed_at_ms, reason) VALUES ('apr-0000000000000006', 'bob', 'fs_write',"
    " '{}', 1000, 'user:bob', 'cut short', 4102444800000, 'failed', 'owner', 2000, 3000, 'interrupted')",
    "INSERT INTO elicitations (id, user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token,"
    " message, requested_schema, prior_answers, expires_at_ms, state) VALUES ('eli-0000000000000001', 'bob',"
    " 'rich_elicit', '{\"n\":1}', 1000, 'user:bob', 'tok-2', 'Who is asking?',"
    " '{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}',"
    " '[{\"request\":{\"message\":\"first?\",\"requestedSchema\":{}},\"answer\":{\"action\":\"decline\"}}]',"
    " 4102444800000, 'pending')",
    "INSERT INTO elicitations (id, user_id, skill_id, arguments, requested_at_ms, requested_by, message,"
    " requested_schema, prior_answers, expires_at_ms, state, action, content, answered_by, answered_at_ms, claim_host,"
    " claim_pid, claim_start_ticks) VALUES ('eli-0000000000000002', 'bob', 'rich_elicit', '{}', 1000, 'user:bob',"
    " 'Name?', '{}', '[]', 4102444800000, 'answered', 'accept', '{\"name\":\"Ada\"}', 'bob', 2000, 'elsewhere', 7, 9)",
    "INSERT INTO elicitations (id, user_id, skill_id, arguments, requested_at_ms, requested_by, message,"
    " requested_schema, prior_answers, expires_at_ms, state, action, content, answered_by, answered_at_ms,"
    " completed_at_ms, result) VALUES ('eli-0000000000000003', 'bob', 'rich_elicit', '{}', 1000, 'user:bob', 'Sure?',"
    " '{}', '[]', 4102444800000, 'completed', 'decline', '{}', 'owner', 2000, 3000, '{\"ok\":true}')",
    "INSERT INTO elicitations (id, user_id, skill_id, arguments, requested_at_ms, requested_by, message,"
    " requested_schema, prior_answers, expires_at_ms, state, answered_at_ms, reason) VALUES ('eli-0000000000000004',"
    " 'bob', 'rich_elicit', '{}', 1000, 'user:bob', 'Late?', '{}', '[]', 1500, 'expired', 2000, 'expired')",
    "INSERT INTO elicitations (id, user_id, skill_id, arguments, requested_at_ms, requested_by, message,"
    " requested_schema, prior_answers, expires_at_ms, state, action, content, answered_by, answered_at_ms,"
    " completed_at_ms, reason) VALUES ('eli-0000000000000005', 'bob', 'rich_elicit', '{}', 1000, 'user:bob', 'Cut?',"
    " 'not json', '[]', 4102444800000, 'failed', 'accept', '{}', 'bob', 2000, 3000, 'interrupted')",
};

// Runs the previous release kept beside those rows: one paused on the pending approval, one on the
// pending question, one done. The upgrade touches no run.
constexpr const char* run_rows[] = {
    "INSERT INTO runs (id, user_id, status, goal, created_ms, updated_ms, record) VALUES ('run-7', 'bob',"
    " 'paused', 'write a.md', 900, 1000, '{\"id\":\"run-7\",\"status\":\"paused\",\"pending_approval\":"
    "\"apr-0000000000000001\"}')",
    "INSERT INTO runs (id, user_id, status, goal, created_ms, updated_ms, record) VALUES ('run-8', 'bob',"
    " 'paused', 'ask me', 900, 1000, '{\"id\":\"run-8\",\"status\":\"paused\",\"pending_elicitation\":"
    "\"eli-0000000000000001\"}')",
    "INSERT INTO runs (id, user_id, status, goal, created_ms, updated_ms, record) VALUES ('run-9', 'carol',"
    " 'succeeded', 'done', 900, 3000, '{\"id\":\"run-9\",\"status\":\"succeeded\",\"answer\":\"5\"}')",
};

TimePoint at_ms(std::int64_t ms) {
    return TimePoint(std::chrono::milliseconds(ms));
}

class DecisionUpgrade : public ::skillhost::testing::OnEachBackend {
protected:
    // A database at the last version with two tables, holding the rows above.
    void write_two_table_database() {
        if (GetParam() == db::StorageBackend::sqlite) {
            auto connection = db::SqliteConnection::open(location().sqlite_file);
            ASSERT_TRUE(connection.ok()) << connection.error().message;
            ASSERT_TRUE(db::migrate_sqlite_schema(*connection, kSqliteVersionWithTwoTables).ok());
            for (const char* row : two_table_rows) ASSERT_TRUE(connection->exec(row).ok()) << row;
            for (const char* row : run_rows) ASSERT_TRUE(connection->exec(row).ok()) << row;
        } else {
            auto connection = db::PgConnection::open(postgres_url);
            ASSERT_TRUE(connection.ok()) << connection.error().message;
            ASSERT_TRUE(db::migrate_postgres_schema(*connection, kPostgresVersionWithTwoTables).ok());
            for (const char* row : two_table_rows) {
                auto inserted = connection->exec(row);
                ASSERT_TRUE(inserted.ok()) << row << ": " << inserted.error().message;
            }
            for (const char* row : run_rows) {
                auto inserted = connection->exec(row);
                ASSERT_TRUE(inserted.ok()) << row << ": " << inserted.error().message;
            }
        }
    }
    // Every run as "id user status goal created updated record", in id order.
    std::vector<std::string> runs() {
        const std::string sql =
            "SELECT id || ' ' || user_id || ' ' || status || ' ' || goal || ' ' || created_ms || ' ' || updated_ms ||"
            " ' ' || record FROM runs ORDER BY id";
        std::vector<std::string> out;
        if (GetParam() == db::StorageBackend::sqlite) {
            auto connection = db::SqliteConnection::open(location().sqlite_file);
            db::SqliteStatement rows(*connection, sql);
            while (rows.step() == SQLITE_ROW) out.emplace_back(rows.text(0));
            return out;
        }
        auto connection = db::PgConnection::open(postgres_url);
        auto rows = connection->query(sql);
        if (!rows.ok()) return {"query failed: " + rows.error().message};
        for (int i = 0; i < rows->rows(); ++i) out.emplace_back(rows->text(i, 0));
        return out;
    }
    // How many tables of `names` the database still has.
    std::int64_t tables_named(const std::string& names) {
        if (GetParam() == db::StorageBackend::sqlite) {
            auto connection = db::SqliteConnection::open(location().sqlite_file);
            db::SqliteStatement count(
                *connection, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN (" + names + ")");
            return count.step() == SQLITE_ROW ? count.integer(0) : -1;
        }
        auto connection = db::PgConnection::open(postgres_url);
        auto count = connection->query(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'"
            " AND table_name IN (" +
            names + ")");
        return count.ok() ? count->integer(0, 0) : -1;
    }
};

SKILLHOST_ON_EACH_BACKEND(DecisionUpgrade);

TEST_P(DecisionUpgrade, EveryApprovalIsKeptInItsStateWithItsPreviewClaimAndOutcome) {
    write_two_table_database();
    auto queue = ApprovalQueue::open(location());
    ASSERT_TRUE(queue.ok()) << queue.error().message;
    EXPECT_EQ(tables_named("'approvals','elicitations'"), 0) << "the old tables outlived the upgrade";
    auto all = (*queue)->list();
    ASSERT_TRUE(all.ok()) << all.error().message;
    EXPECT_EQ(all->size(), 6u);

    auto pending = (*queue)->get("apr-0000000000000001");
    ASSERT_TRUE(pending.ok()) << pending.error().message;
    EXPECT_EQ(pending->state, ApprovalState::pending);
    EXPECT_EQ(pending->user_id, "bob");
    EXPECT_EQ(pending->skill_id, "fs_write");
    EXPECT_EQ(pending->arguments, json::parse(R"({"path":"a.md"})"));
    EXPECT_EQ(pending->requested_at, at_ms(1000));
    EXPECT_EQ(pending->requested_by, auth::Requester::run("run-7"));
    EXPECT_EQ(pending->requested_token, "tok-1");
    EXPECT_EQ(pending->preview, R"(Write a file (fs_write): path="a.md")");
    EXPECT_EQ(pending->expires_at, at_ms(4102444800000));

    // Claimed by a process on another machine: still approved (nobody can tell it died).
    auto claimed = (*queue)->get("apr-0000000000000002");
    EXPECT_EQ(claimed->state, ApprovalState::approved);
    EXPECT_EQ(claimed->resolved_by, "owner");
    EXPECT_EQ(claimed->resolved_at, at_ms(2000));

    auto executed = (*queue)->get("apr-0000000000000003");
    EXPECT_EQ(executed->state, ApprovalState::executed);
    EXPECT_EQ(executed->completed_at, at_ms(3000));
    EXPECT_EQ(executed->result, json::parse(R"({"ok":true,"data":5})"));
    auto rejected = (*queue)->get("apr-0000000000000004");
    EXPECT_EQ(rejected->state, ApprovalState::rejected);
    EXPECT_EQ(rejected->reason, "not now");
    EXPECT_EQ((*queue)->get("apr-0000000000000005")->state, ApprovalState::expired);
    EXPECT_EQ((*queue)->get("apr-0000000000000006")->state, ApprovalState::failed);
    EXPECT_EQ((*queue)->get("apr-0000000000000006")->reason, "interrupted");

    // The upgraded rows go on along the state machine: the pending one is approved once, the
    // executed one stays done.
    const Resolver owner{"owner", auth::Role::owner};
    auto approved = (*queue)->claim_for_execution("apr-0000000000000001", owner);
    ASSERT_TRUE(approved.ok()) << approved.error().message;
    EXPECT_TRUE((*queue)->complete("apr-0000000000000001", true, json::object{{"ok", true}}).ok());
    auto again = (*queue)->claim_for_execution("apr-0000000000000003", owner);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, "APPROVAL_ALREADY_RESOLVED");
}

TEST_P(DecisionUpgrade, EveryQuestionIsKeptInItsStateWithItsFormAnswerAndEarlierAnswers) {
    write_two_table_database();
    auto queue = ElicitationQueue::open(location());
    ASSERT_TRUE(queue.ok()) << queue.error().message;
    auto all = (*queue)->list();
    ASSERT_TRUE(all.ok()) << all.error().message;
    EXPECT_EQ(all->size(), 5u);

    auto pending = (*queue)->get("eli-0000000000000001");
    ASSERT_TRUE(pending.ok()) << pending.error().message;
    EXPECT_EQ(pending->state, ElicitationState::pending);
    EXPECT_EQ(pending->skill_id, "rich_elicit");
    EXPECT_EQ(pending->arguments, json::parse(R"({"n":1})"));
    EXPECT_EQ(pending->requested_token, "tok-2");
    EXPECT_EQ(pending->message, "Who is asking?");
    EXPECT_EQ(json::value(pending->requested_schema),
              json::parse(R"({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})"));
    EXPECT_EQ(json::value(pending->prior_answers),
              json::parse(R"([{"request":{"message":"first?","requestedSchema":{}},"answer":{"action":"decline"}}])"));
    EXPECT_FALSE(pending->answer.has_value());

    auto answered = (*queue)->get("eli-0000000000000002");
    EXPECT_EQ(answered->state, ElicitationState::answered);
    ASSERT_TRUE(answered->answer.has_value());
    EXPECT_EQ(answered->answer->action, "accept");
    EXPECT_EQ(json::value(answered->answer->content), json::parse(R"({"name":"Ada"})"));
    EXPECT_EQ(answered->answered_by, "bob");
    EXPECT_EQ(answered->answered_at, at_ms(2000));

    auto completed = (*queue)->get("eli-0000000000000003");
    EXPECT_EQ(completed->state, ElicitationState::completed);
    EXPECT_EQ(completed->answer->action, "decline");
    EXPECT_EQ(completed->result, json::parse(R"({"ok":true})"));
    EXPECT_EQ((*queue)->get("eli-0000000000000004")->state, ElicitationState::expired);
    // A form spoiled by hand does not stop the upgrade: it reads as an empty form.
    auto failed = (*queue)->get("eli-0000000000000005");
    EXPECT_EQ(failed->state, ElicitationState::failed);
    EXPECT_TRUE(failed->requested_schema.empty());

    const Resolver bob{"bob", auth::Role::standard};
    auto given = (*queue)->answer("eli-0000000000000001", bob, ElicitationAnswer{"accept", {{"name", "Ada"}}});
    ASSERT_TRUE(given.ok()) << given.error().message;
    EXPECT_EQ(given->state, ElicitationState::answered);
}

TEST_P(DecisionUpgrade, ApprovalsAndQuestionsShareOneTableButNeverEachOthersIds) {
    write_two_table_database();
    auto approvals = ApprovalQueue::open(location());
    auto questions = ElicitationQueue::open(location());
    ASSERT_TRUE(approvals.ok() && questions.ok());
    auto as_approval = (*approvals)->get("eli-0000000000000001");
    ASSERT_FALSE(as_approval.ok());
    EXPECT_EQ(as_approval.error().code, "APPROVAL_NOT_FOUND");
    auto as_question = (*questions)->get("apr-0000000000000001");
    ASSERT_FALSE(as_question.ok());
    EXPECT_EQ(as_question.error().code, "ELICITATION_NOT_FOUND");
}

TEST_P(DecisionUpgrade, EveryRunIsKeptAsItWasAndWhatItWaitsForIsStillPending) {
    write_two_table_database();
    const std::vector<std::string> before = runs();
    ASSERT_EQ(before.size(), 3u);
    auto approvals = ApprovalQueue::open(location());
    ASSERT_TRUE(approvals.ok()) << approvals.error().message;
    auto questions = ElicitationQueue::open(location());
    ASSERT_TRUE(questions.ok()) << questions.error().message;
    EXPECT_EQ(runs(), before) << "the upgrade changed a run";
    // What the paused runs wait for is still there, pending, for the same user.
    auto approval = (*approvals)->get("apr-0000000000000001");
    ASSERT_TRUE(approval.ok()) << approval.error().message;
    EXPECT_EQ(approval->state, ApprovalState::pending);
    EXPECT_EQ(approval->requested_by, auth::Requester::run("run-7"));
    auto question = (*questions)->get("eli-0000000000000001");
    ASSERT_TRUE(question.ok()) << question.error().message;
    EXPECT_EQ(question->state, ElicitationState::pending);
    EXPECT_EQ(question->user_id, "bob");
}

}  // namespace
}  // namespace skillhost::decisions
