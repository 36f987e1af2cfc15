// The server's parts in-process: routing, query parsing, body fields, the error-to-status map,
// metrics rendering, event channels and the API token store.
#include "db/error_codes.hpp"
#include "exec/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "auth/api_token_store.hpp"
#include "decisions/error_codes.hpp"
#include "policy/error_codes.hpp"
#include "server/error_codes.hpp"
#include "server/api_error.hpp"
#include "server/api_request.hpp"
#include "server/event_channel.hpp"
#include "server/metrics.hpp"
#include "server/route_table.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace skillhost::server {
namespace {

using ::testing::HasSubstr;

TEST(RouteTable, MatchesPatternsCapturesParametersAndKnowsOtherMethods) {
    RouteTable routes;
    int hit = 0;
    routes.add(http::verb::get, "/v1/runs/{id}", [&hit](ApiRequest&) -> Reply {
        hit = 1;
        return Response{};
    });
    routes.add(http::verb::post, "/v1/runs/{id}/cancel", [&hit](ApiRequest&) -> Reply {
        hit = 2;
        return Response{};
    });
    auto m = routes.match(http::verb::get, "/v1/runs/run-1");
    ASSERT_NE(m.route, nullptr);
    EXPECT_EQ(m.params.at("id"), "run-1");
    EXPECT_EQ(m.route->pattern, "/v1/runs/{id}");
    EXPECT_NE(routes.match(http::verb::post, "/v1/runs/run-1/cancel").route, nullptr);
    auto wrong = routes.match(http::verb::delete_, "/v1/runs/run-1");
    EXPECT_EQ(wrong.route, nullptr);
    EXPECT_EQ(wrong.allowed_methods, std::vector<std::string>{"GET"});
    auto none = routes.match(http::verb::get, "/v1/runs/run-1/nope");
    EXPECT_EQ(none.route, nullptr);
    EXPECT_TRUE(none.allowed_methods.empty());
}

TEST(QueryString, DecodesPercentAndPlusAndRejectsBrokenEscapes) {
    std::map<std::string, std::string> q;
    ASSERT_TRUE(parse_query("skill=fs_%2A&user=al+ice&flag", q));
    EXPECT_EQ(q.at("skill"), "fs_*");
    EXPECT_EQ(q.at("user"), "al ice");
    EXPECT_EQ(q.at("flag"), "");
    std::map<std::string, std::string> bad;
    EXPECT_FALSE(parse_query("a=%4", bad));
    EXPECT_FALSE(parse_query("a=%zz", bad));
}

TEST(BodyFields, UnknownMissingAndWronglyTypedFieldsNameTheField) {
    boost::json::object body{{"goal", 3}, {"extra", true}};
    try {
        allow_fields(body, {"goal"});
        FAIL();
    } catch (const ApiFailure& f) {
        EXPECT_EQ(f.status, http::status::bad_request);
        EXPECT_EQ(f.error.code, "UNKNOWN_FIELD");
        EXPECT_EQ(f.error.details.at("field").as_string(), "extra");
    }
    try {
        (void)string_field(body, "goal", true);
        FAIL();
    } catch (const ApiFailure& f) {
        EXPECT_EQ(f.error.code, "FIELD_WRONG_TYPE");
        EXPECT_THAT(f.error.message, HasSubstr("not a number"));
    }
    EXPECT_THROW((void)string_field(boost::json::object{}, "goal", true), ApiFailure);
    EXPECT_FALSE(string_field(boost::json::object{}, "goal", false));
    EXPECT_THROW((void)int_field(boost::json::object{{"n", 500}}, "n", 1, 100), ApiFailure);
    EXPECT_EQ(int_field(boost::json::object{{"n", 5}}, "n", 1, 100).value(), 5);
}

TEST(ErrorStatus, CodesMapToTheStatusesTheContractPromises) {
    auto status = [](const ErrorCode& code) { return status_for(Error{code, ""}); };
    EXPECT_EQ(status(errors::kSkillNotFound), http::status::not_found);
    EXPECT_EQ(status(errors::kInvalidArgs), http::status::bad_request);
    EXPECT_EQ(status(errors::kModeForbids), http::status::forbidden);
    EXPECT_EQ(status(errors::kTrustTooLow), http::status::forbidden);
    EXPECT_EQ(status(errors::kApprovalAlreadyResolved), http::status::conflict);
    EXPECT_EQ(status(errors::kApprovalRequired), http::status::accepted);
    EXPECT_EQ(status(errors::kTooManyRuns), http::status::too_many_requests);
    EXPECT_EQ(status(errors::kDatabaseError), http::status::internal_server_error);
    EXPECT_EQ(status(errors::kDatabaseErrorUnavailable), http::status::service_unavailable);
    EXPECT_EQ(status(errors::kTooManyStreamsOnServer), http::status::service_unavailable);
    // A plugin's own code says nothing about the request: its spelling does not make it a 404.
    EXPECT_EQ(status_for(Error::from_plugin("FILE_NOT_FOUND", "")), http::status::bad_gateway);
}

TEST(Metrics, RendersCountersHistogramsAndGaugesInPrometheusFormat) {
    Metrics m;
    m.record_skill_call("fs_read", true, "", 0.0003);
    m.record_skill_call("fs_read", false, "FILE_NOT_FOUND", 0.02);
    m.record_request("GET", "/v1/skills", 200, 0.001);
    llm::LlmCallRecord llm;
    llm.role = "orchestrator";
    llm.latency = std::chrono::milliseconds(1200);
    llm.prompt_tokens = 100;
    llm.completion_tokens = 20;
    m.record_llm_call(llm);
    MetricGauges g;
    g.catalog_version = 7;
    g.runs_by_status["completed"] = 3;
    const std::string text = m.render(g);
    EXPECT_THAT(text, HasSubstr("skillhost_skill_calls_total{skill=\"fs_read\",outcome=\"ok\"} 1"));
    EXPECT_THAT(text, HasSubstr("skillhost_skill_errors_total{skill=\"fs_read\",code=\"FILE_NOT_FOUND\"} 1"));
    EXPECT_THAT(text, HasSubstr("skillhost_skill_call_duration_seconds_bucket{skill=\"fs_read\",le=\"0.0005\"} 1"));
    EXPECT_THAT(text, HasSubstr("skillhost_skill_call_duration_seconds_bucket{skill=\"fs_read\",le=\"0.025\"} 2"));
    EXPECT_THAT(text, HasSubstr("skillhost_skill_call_duration_seconds_count{skill=\"fs_read\"} 2"));
    EXPECT_THAT(text, HasSubstr("skillhost_llm_tokens_total{role=\"orchestrator\",kind=\"prompt\"} 100"));
    EXPECT_THAT(text, HasSubstr("skillhost_llm_call_duration_seconds_bucket{role=\"orchestrator\",le=\"2.5\"} 1"));
    EXPECT_THAT(text, HasSubstr("skillhost_catalog_version 7"));
    EXPECT_THAT(text, HasSubstr("skillhost_runs{status=\"completed\"} 3"));
    EXPECT_EQ(metric_label("skill", "a\"b\\c\nd"), "skill=\"a\\\"b\\\\c\\nd\"");
}

TEST(EventChannel, DeliversInOrderEndsAfterCloseAndCutsOffASlowReader) {
    EventChannel channel(3);
    std::thread producer([&] {
        channel.push({"a", "1"});
        channel.push({"b", "2"});
        channel.close();
    });
    producer.join();
    EXPECT_EQ(channel.next(std::chrono::milliseconds(100))->name, "a");
    EXPECT_EQ(channel.next(std::chrono::milliseconds(100))->name, "b");
    EXPECT_FALSE(channel.next(std::chrono::milliseconds(10)));
    EXPECT_TRUE(channel.ended());

    EventChannel slow(2);
    slow.push({"1", ""});
    slow.push({"2", ""});
    slow.push({"3", ""});  // one too many: the reader is cut off
    EXPECT_TRUE(slow.closed());
}

// The bytes of an SQLite database as they are on disk: the main file and its write-ahead log.
std::string database_files_on_disk(const std::filesystem::path& db) {
    std::string bytes = testing::read_file(db);
    const std::filesystem::path wal = db.string() + "-wal";
    if (std::filesystem::exists(wal)) bytes += testing::read_file(wal);
    return bytes;
}

TEST(ApiTokenStore, IssuesTokensStoresOnlyHashesAndRevokes) {
    testing::TempDir dir("token-store");
    auto store = auth::ApiTokenStore::open(dir.path() / "skillhost.db");
    ASSERT_TRUE(store.ok());
    auto issued = store.value()->issue("alice", "ci");
    ASSERT_TRUE(issued.ok());
    EXPECT_EQ(issued->token.rfind("shk_", 0), 0u);
    EXPECT_EQ(issued->token.size(), 4u + 64u);
    EXPECT_EQ(store.value()->user_for(issued->token).value().value(), "alice");
    EXPECT_FALSE(store.value()->user_for("shk_wrong").value());
    auto listed = store.value()->list("alice");
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_TRUE(listed->at(0).token.empty());
    // In WAL mode new rows live in skillhost.db-wal until a checkpoint: read every file SQLite
    // keeps on disk, and prove the read sees the row by finding its hash there.
    const std::string on_disk = database_files_on_disk(dir.path() / "skillhost.db");
    EXPECT_NE(on_disk.find(issued->sha256), std::string::npos) << "the issued row is not in the files read";
    EXPECT_EQ(on_disk.find(issued->token), std::string::npos);
    EXPECT_FALSE(store.value()->revoke("abc").ok());  // too short to be an id
    EXPECT_EQ(store.value()->revoke(issued->sha256.substr(0, 12)).value(), 1);
    EXPECT_FALSE(store.value()->user_for(issued->token).value());
}

}  // namespace
}  // namespace skillhost::server
