#include "audit/audit_log.hpp"
#include "audit/audit_reader.hpp"
#include "audit/audit_redaction.hpp"
#include "base/sha256.hpp"
#include "support/unit_testing.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/mount.h>
#include <unistd.h>
#include <thread>

namespace skillhost::audit {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

TimePoint at(const char* text) {
    auto parsed = parse_time_or_age(text, TimePoint{});
    EXPECT_TRUE(parsed.ok()) << text;
    return parsed.ok() ? *parsed : TimePoint{};
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

struct AuditFixture {
    TempDir dir;
    std::shared_ptr<TimePoint> now = std::make_shared<TimePoint>(at("2026-11-21T23:59:59.500Z"));
    std::unique_ptr<AuditLog> log;

    explicit AuditFixture(AuditOptions options = {}) {
        auto clock = now;
        options.clock = [clock] { return *clock; };
        auto opened = AuditLog::open(dir.path() / "audit", options);
        EXPECT_TRUE(opened.ok());
        log = std::move(*opened);
    }
    std::filesystem::path audit_dir() const { return dir.path() / "audit"; }
};

TEST(AuditLog, WritesOneJsonLinePerRecordIntoTheDaysFile) {
    AuditFixture f;
    SkillCallAudit call;
    call.user_id = "bob";
    call.skill_id = "fs_write";
    call.call_id = "call-1";
    call.arguments = boost::json::parse(R"({"path":"notes/a.md","content":"hi"})");
    call.duration = std::chrono::microseconds(1500);
    call.ok = true;
    ASSERT_TRUE(f.log->record_skill_call(call).ok());
    *f.now = at("2026-11-22T00:00:00.250Z");  // midnight UTC: a new file
    call.ok = false;
    call.error_code = "TIMEOUT";
    ASSERT_TRUE(f.log->record_skill_call(call).ok());
    LlmCallAudit llm{"bob", "run-1", "planner", "scripted", "canned", std::chrono::microseconds(2000),
                     120,   30,      true,      "",         ""};
    ASSERT_TRUE(f.log->record_llm_call(llm).ok());

    const auto day1 = lines_of(f.audit_dir() / "2026-11-21.jsonl");
    const auto day2 = lines_of(f.audit_dir() / "2026-11-22.jsonl");
    ASSERT_EQ(day1.size(), 1u);
    ASSERT_EQ(day2.size(), 2u);
    const auto first = boost::json::parse(day1[0]).as_object();
    EXPECT_EQ(first.at("ts").as_string(), "2026-11-21T23:59:59.500Z");
    EXPECT_EQ(first.at("kind").as_string(), "skill_call");
    EXPECT_EQ(first.at("user").as_string(), "bob");
    EXPECT_EQ(first.at("skill").as_string(), "fs_write");
    EXPECT_EQ(first.at("outcome").as_string(), "ok");
    EXPECT_DOUBLE_EQ(first.at("duration_ms").as_double(), 1.5);
    EXPECT_EQ(first.at("args_sha256").as_string(), sha256_hex(R"({"path":"notes/a.md","content":"hi"})"));
    EXPECT_EQ(boost::json::parse(day2[0]).at("outcome").as_string(), "TIMEOUT");
    const auto llm_line = boost::json::parse(day2[1]).as_object();
    EXPECT_EQ(llm_line.at("kind").as_string(), "llm_call");
    EXPECT_EQ(llm_line.at("input_tokens").as_int64(), 120);
    EXPECT_EQ(AuditLog::file_name_for(at("2026-01-02T03:04:05Z")), "2026-01-02.jsonl");
}

TEST(AuditLog, RecordsDecisionsWithTheirRule) {
    AuditFixture f;
    const auto args = boost::json::parse(R"({"path":"secrets/k","content":"x"})");
    DecisionAudit d;
    d.user_id = "bob";
    d.skill_id = "fs_write";
    d.mode = "agent";
    d.outcome = "deny";
    d.step = "rule";
    d.code = "DENIED_BY_RULE";
    d.reason = "denied by rule fs_write(path=secrets/**)";
    d.rule = "fs_write(path=secrets/**)";
    d.rule_location = "policy.yaml:2";
    ASSERT_TRUE(f.log->record_decision(d, args).ok());
    const auto lines = lines_of(f.audit_dir() / "2026-11-21.jsonl");
    ASSERT_EQ(lines.size(), 1u);
    const auto record = boost::json::parse(lines[0]).as_object();
    EXPECT_EQ(record.at("kind").as_string(), "decision");
    EXPECT_EQ(record.at("outcome").as_string(), "deny");
    EXPECT_EQ(record.at("code").as_string(), "DENIED_BY_RULE");
    EXPECT_EQ(record.at("step").as_string(), "rule");
    EXPECT_EQ(record.at("rule").as_string(), "fs_write(path=secrets/**)");
    EXPECT_EQ(record.at("rule_location").as_string(), "policy.yaml:2");
    EXPECT_EQ(record.at("arguments").at("path").as_string(), "secrets/k");
}

TEST(AuditLog, SecretsNeverReachTheFile) {
    AuditFixture f;
    SkillCallAudit call;
    call.user_id = "bob";
    call.skill_id = "http_get";
    call.arguments = boost::json::parse(R"({"url":"https://x","headers":{"Authorization":"Bearer sk-live-1","X":"y"},
        "api_key":"sk-live-2","nested":[{"password":"hunter2"}],"client_secret":"s3","Access_Token":"tok"})");
    call.ok = true;
    ASSERT_TRUE(f.log->record_skill_call(call).ok());
    ASSERT_TRUE(f.log->append("custom", {{"details", boost::json::object{{"session_cookie", "c00kie"}}}}).ok());
    std::ifstream in(f.audit_dir() / "2026-11-21.jsonl");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* secret : {"sk-live-1", "sk-live-2", "hunter2", "s3\"", "tok\"", "c00kie"}) {
        EXPECT_EQ(text.find(secret), std::string::npos) << secret << " leaked into " << text;
    }
    const auto record = boost::json::parse(lines_of(f.audit_dir() / "2026-11-21.jsonl")[0]);
    EXPECT_EQ(record.at("arguments").at("headers").at("Authorization").as_string(), "[redacted]");
    EXPECT_EQ(record.at("arguments").at("headers").at("X").as_string(), "y");
    EXPECT_EQ(record.at("arguments").at("nested").at(0).at("password").as_string(), "[redacted]");
    EXPECT_EQ(record.at("arguments").at("url").as_string(), "https://x");
}

TEST(AuditLog, LargeValuesAreTruncatedWithTheirDigest) {
    AuditOptions options;
    options.max_value_chars = 64;
    AuditFixture f(options);
    const std::string big(5000, 'z');
    boost::json::array many;
    for (int i = 0; i < 100; ++i) many.push_back(i);
    SkillCallAudit call;
    call.user_id = "bob";
    call.skill_id = "fs_write";
    call.arguments = boost::json::object{{"path", "a.md"}, {"content", big}, {"list", many}};
    call.ok = true;
    ASSERT_TRUE(f.log->record_skill_call(call).ok());
    const auto lines = lines_of(f.audit_dir() / "2026-11-21.jsonl");
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_LT(lines[0].size(), 900u);
    const auto record = boost::json::parse(lines[0]);
    const std::string content(record.at("arguments").at("content").as_string());
    EXPECT_THAT(content, HasSubstr("[truncated: 5000 chars, sha256 " + sha256_hex(big) + "]"));
    EXPECT_THAT(content, ::testing::StartsWith("zzzz"));
    EXPECT_THAT(std::string(record.at("arguments").at("list").as_string()), HasSubstr("[truncated:"));
    EXPECT_EQ(record.at("arguments").at("path").as_string(), "a.md");
    // The digest covers the whole value, so two different big arguments stay distinguishable.
    EXPECT_EQ(record.at("args_sha256").as_string(), argument_digest(call.arguments));
}

// The per-call records are written as text directly; they must read exactly as the generic
// append() (a json::object redacted, truncated and serialised) writes the same fields.
TEST(AuditLog, PerCallRecordsAreTheTextTheGenericPathWrites) {
    AuditOptions options;
    options.max_value_chars = 48;
    AuditFixture f(options);
    const std::vector<std::string> cases = {
        R"({})",
        R"({"text":"hello \"quoted\"\n\u0001 caf\u00e9","repeat":3,"ratio":0.25,"on":true,"none":null})",
        R"({"nested":{"a":[1,2,{"b":"c"}]},"k":"v"})",
        R"({"long":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})",
        R"({"list":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]})",
        R"({"a":"short","headers":{"X-Api-Key":"k1"},"deep":[[{"Cookie":"c"}]]})",
        R"([1,"two",{"password":"p"}])",
        R"("just text")",
    };
    for (const auto& text : cases) {
        const auto args = boost::json::parse(text);
        const AuditedArguments audited = audited_arguments(args, options.max_value_chars);
        EXPECT_EQ(audited.text, boost::json::serialize(redact_and_truncate(args, options.max_value_chars))) << text;
        EXPECT_EQ(audited.sha256, argument_digest(args)) << text;

        SkillCallAudit call;
        call.user_id = "bob";
        call.skill_id = "fs_write";
        call.call_id = "call-\"1\"";
        call.requested_by = auth::Requester::mcp();
        call.arguments = args;
        call.duration = std::chrono::microseconds(1234);
        call.ok = false;
        call.error_code = "TIMEOUT";
        ASSERT_TRUE(f.log->record_skill_call(call).ok());
        ASSERT_TRUE(f.log
                        ->append("skill_call", {{"user", call.user_id},
                                                {"skill", call.skill_id},
                                                {"call_id", call.call_id},
                                                {"requested_by", call.requested_by.to_text()},
                                                {"args_sha256", argument_digest(args)},
                                                {"arguments", args},
                                                {"duration_ms", 1.234},
                                                {"outcome", "TIMEOUT"}})
                        .ok());
        const auto lines = lines_of(f.audit_dir() / "2026-11-21.jsonl");
        ASSERT_GE(lines.size(), 2u);
        EXPECT_EQ(lines[lines.size() - 2], lines.back()) << text;
    }
}

TEST(AuditLog, ConcurrentWritersProduceWholeLines) {
    AuditOptions options;
    options.fsync = FsyncPolicy::never;
    AuditFixture f(options);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                SkillCallAudit call;
                call.user_id = "u" + std::to_string(t);
                call.skill_id = "s";
                call.arguments = boost::json::object{{"i", i}, {"pad", std::string(200, 'p')}};
                call.ok = true;
                ASSERT_TRUE(f.log->record_skill_call(call).ok());
            }
        });
    }
    for (auto& t : threads) t.join();
    const auto lines = lines_of(f.audit_dir() / "2026-11-21.jsonl");
    ASSERT_EQ(lines.size(), 800u);
    for (const auto& line : lines) ASSERT_TRUE(boost::json::parse(line).is_object()) << line;
}

TEST(AuditLog, EveryFsyncPolicyWrites) {
    for (auto policy : {FsyncPolicy::never, FsyncPolicy::always, FsyncPolicy::interval}) {
        AuditOptions options;
        options.fsync = policy;
        AuditFixture f(options);
        ASSERT_TRUE(f.log->append("note", {{"user", "u"}}).ok());
        ASSERT_TRUE(f.log->flush().ok());
        EXPECT_EQ(lines_of(f.audit_dir() / "2026-11-21.jsonl").size(), 1u) << to_string(policy);
    }
}

TEST(AuditLog, AnUnwritableDirectoryIsAnError) {
    TempDir dir;
    dir.write("audit", "a file, not a directory");
    auto log = AuditLog::open(dir.path() / "audit");
    ASSERT_FALSE(log.ok());
    EXPECT_EQ(log.error().code, "AUDIT_WRITE_FAILED");
}

// A writer killed mid-record left half a line: the next record starts on a line of its own.
TEST(AuditLog, ARecordCutShortByAKillDoesNotSwallowTheNextOne) {
    TempDir dir;
    std::filesystem::create_directories(dir.path() / "audit");
    const auto file = dir.path() / "audit" / "2026-11-21.jsonl";
    {
        std::ofstream out(file, std::ios::binary);
        out << R"({"ts":"2026-11-21T10:00:00.000Z","kind":"approval","user":"bob"})"
            << "\n"
            << R"({"ts":"2026-11-21T10:00:01.000Z","kind":"deci)";
    }
    AuditOptions options;
    options.clock = [] { return at("2026-11-21T11:00:00Z"); };
    auto log = AuditLog::open(dir.path() / "audit", options);
    ASSERT_TRUE(log.ok());
    SkillCallAudit call;
    call.user_id = "bob";
    call.skill_id = "fs_write";
    call.ok = true;
    ASSERT_TRUE((*log)->record_skill_call(call).ok());
    ASSERT_TRUE((*log)->record_skill_call(call).ok());

    const auto lines = lines_of(file);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[1], R"({"ts":"2026-11-21T10:00:01.000Z","kind":"deci)") << "the torn record stays as it was";
    for (std::size_t i : {std::size_t{2}, std::size_t{3}}) {
        boost::system::error_code ec;
        auto record = boost::json::parse(lines[i], ec);
        ASSERT_FALSE(ec) << lines[i];
        EXPECT_EQ(record.at("kind").as_string(), "skill_call");
    }
    auto page = read_audit_page(dir.path() / "audit", AuditFilter{}, 10);
    ASSERT_TRUE(page.ok());
    EXPECT_EQ(page->batch.records.size(), 3u) << "every whole record is readable";
}

// An append that ran out of space part way: once space returns, the next record is whole.
TEST(AuditLog, AnAppendCutShortByAFullDiskDoesNotSwallowTheNextOne) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root (CI runs as root)";
    TempDir dir;
    const auto mounted = dir.path() / "audit";
    std::filesystem::create_directories(mounted);
    ASSERT_EQ(::mount("tmpfs", mounted.c_str(), "tmpfs", 0, "size=16k"), 0) << std::strerror(errno);
    struct Unmount {
        std::filesystem::path dir;
        ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
    } unmount{mounted};
    // Half a page of room, so the failing record is written in part.
    {
        std::ofstream filler(mounted / "filler", std::ios::binary);
        filler << std::string(16 * 1024 - 4096 - 2000, 'x');
    }
    AuditOptions options;
    options.fsync = FsyncPolicy::never;
    options.clock = [] { return at("2026-11-21T11:00:00Z"); };
    options.max_value_chars = 100000;
    auto log = AuditLog::open(mounted, options);
    ASSERT_TRUE(log.ok());
    SkillCallAudit call;
    call.user_id = "bob";
    call.skill_id = "fs_write";
    call.ok = true;
    call.arguments = boost::json::object{{"content", std::string(1500, 'c')}};
    int written = 0;
    Status failed;
    for (int i = 0; i < 50 && failed.ok(); ++i) {
        failed = (*log)->record_skill_call(call);
        if (failed.ok()) ++written;
    }
    ASSERT_FALSE(failed.ok()) << "the disk never filled";
    EXPECT_EQ(failed.error().code, "AUDIT_WRITE_FAILED");
    EXPECT_EQ(failed.error().details.at("cause").as_string(), "disk_full");
    std::filesystem::remove(mounted / "filler");
    ASSERT_TRUE((*log)->record_skill_call(call).ok());

    const auto lines = lines_of(mounted / "2026-11-21.jsonl");
    int whole = 0;
    for (const auto& line : lines) {
        boost::system::error_code ec;
        (void)boost::json::parse(line, ec);
        if (!ec) ++whole;
    }
    EXPECT_EQ(whole, written + 1) << "a record written after the failure was swallowed";
    boost::system::error_code ec;
    (void)boost::json::parse(lines.back(), ec);
    EXPECT_FALSE(ec) << "the last record is not whole: " << lines.back().substr(0, 80);
}

void write_sample_log(AuditFixture& f) {
    auto call = [&](const char* when, const char* user, const char* skill) {
        *f.now = at(when);
        SkillCallAudit c;
        c.user_id = user;
        c.skill_id = skill;
        c.ok = true;
        ASSERT_TRUE(f.log->record_skill_call(c).ok());
    };
    call("2026-11-20T10:00:00Z", "bob", "fs_write");
    call("2026-11-21T09:00:00Z", "alice", "fs_read");
    call("2026-11-21T12:00:00Z", "bob", "task_add");
    *f.now = at("2026-11-21T13:00:00Z");
    ASSERT_TRUE(f.log->append("approval", {{"user", "bob"}, {"skill", "fs_write"}, {"transition", "requested"}}).ok());
}

TEST(AuditReader, FiltersByUserSkillKindAndSince) {
    AuditFixture f;
    write_sample_log(f);
    auto count = [&](AuditFilter filter) {
        auto batch = read_audit_log(f.audit_dir(), filter);
        EXPECT_TRUE(batch.ok());
        EXPECT_TRUE(batch->problems.empty());
        return batch->records.size();
    };
    EXPECT_EQ(count({}), 4u);
    EXPECT_EQ(count({std::string("bob"), std::nullopt, std::nullopt, std::nullopt}), 3u);
    EXPECT_EQ(count({std::nullopt, std::string("fs_*"), std::nullopt, std::nullopt}), 3u);
    EXPECT_EQ(count({std::string("bob"), std::string("fs_write"), std::string("skill_call"), std::nullopt}), 1u);
    EXPECT_EQ(count({std::nullopt, std::nullopt, std::nullopt, at("2026-11-21T11:00:00Z")}), 2u);
    EXPECT_EQ(count({std::nullopt, std::nullopt, std::string("approval"), at("2026-11-21")}), 1u);
    auto all = read_audit_log(f.audit_dir(), {});
    EXPECT_EQ(all->records.front().at("ts").as_string(), "2026-11-20T10:00:00.000Z");  // oldest first
    // No log yet is an empty log, not an error.
    auto none = read_audit_log(f.dir.path() / "elsewhere", {});
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->records.empty());
}

TEST(AuditReader, FormatsOneReadableLinePerRecord) {
    const auto record = boost::json::parse(R"({"ts":"2026-11-21T12:00:00.000Z","kind":"skill_call","user":"bob",
        "skill":"fs_write","outcome":"TIMEOUT","duration_ms":1234.56,"args_sha256":"ab"})")
                            .as_object();
    EXPECT_EQ(format_audit_record(record), "2026-11-21T12:00:00.000Z skill_call bob fs_write TIMEOUT 1234.6ms");
    const auto decision = boost::json::parse(R"({"ts":"t","kind":"decision","user":"bob","skill":"x","outcome":"deny",
        "code":"DENIED_BY_RULE","reason":"denied by rule"})")
                              .as_object();
    EXPECT_EQ(format_audit_record(decision), "t decision bob x deny DENIED_BY_RULE — denied by rule");
}

TEST(AuditReader, ReportsLinesThatAreNotJson) {
    AuditFixture f;
    write_sample_log(f);
    std::ofstream(f.audit_dir() / "2026-11-21.jsonl", std::ios::app) << "not json\n";
    auto batch = read_audit_log(f.audit_dir(), {});
    ASSERT_TRUE(batch.ok());
    EXPECT_EQ(batch->records.size(), 4u);
    ASSERT_EQ(batch->problems.size(), 1u);
    EXPECT_THAT(batch->problems[0], HasSubstr("2026-11-21.jsonl:4: not a JSON object"));
}

TEST(AuditReader, TailReturnsOnlyNewRecordsAndWaitsForUnfinishedLines) {
    AuditFixture f;
    write_sample_log(f);
    AuditTail tail(f.audit_dir(), {std::string("bob"), std::nullopt, std::nullopt, std::nullopt});
    EXPECT_EQ(tail.poll()->records.size(), 3u);
    EXPECT_EQ(tail.poll()->records.size(), 0u);
    *f.now = at("2026-11-21T14:00:00Z");
    ASSERT_TRUE(f.log->append("note", {{"user", "bob"}}).ok());
    ASSERT_TRUE(f.log->append("note", {{"user", "alice"}}).ok());
    EXPECT_EQ(tail.poll()->records.size(), 1u);
    // A half-written line (another process mid-write) is not returned until it is complete.
    std::ofstream(f.audit_dir() / "2026-11-21.jsonl", std::ios::app)
        << R"({"ts":"2026-11-21T15:00:00.000Z","kind":"note",)";
    EXPECT_EQ(tail.poll()->records.size(), 0u);
    std::ofstream(f.audit_dir() / "2026-11-21.jsonl", std::ios::app) << R"("user":"bob"})"
                                                                     << "\n";
    EXPECT_EQ(tail.poll()->records.size(), 1u);
    // A new day's file is picked up.
    *f.now = at("2026-11-22T00:00:01Z");
    ASSERT_TRUE(f.log->append("note", {{"user", "bob"}}).ok());
    const auto batch = tail.poll();
    ASSERT_EQ(batch->records.size(), 1u);
    EXPECT_EQ(batch->records[0].at("ts").as_string(), "2026-11-22T00:00:01.000Z");
}

TEST(AuditReader, FollowDeliversRecordsWrittenWhileFollowing) {
    AuditFixture f;
    std::vector<std::string> seen;
    std::atomic<int> polls{0};
    std::thread writer([&] {
        while (polls.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ASSERT_TRUE(f.log->append("note", {{"user", "bob"}, {"n", 1}}).ok());
    });
    const Status status = follow_audit_log(
        f.audit_dir(), {},
        [&](const AuditBatch& batch) {
            for (const auto& r : batch.records) seen.emplace_back(r.at("kind").as_string());
        },
        [&] { return ++polls < 2000 && seen.empty(); }, std::chrono::milliseconds(2));
    writer.join();
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(seen, std::vector<std::string>{"note"});
}

}  // namespace
}  // namespace skillhost::audit

namespace skillhost::audit {
namespace {

TEST(AuditReader, ReadsOnlyDayFiles) {
    unit_testing::TempDir dir;
    dir.write("audit/2026-11-21.jsonl", "{\"ts\":\"2026-11-21T00:00:00.000Z\",\"kind\":\"note\"}\n");
    dir.write("audit/2026-11-21.jsonl.bak", "not json\n");
    dir.write("audit/notes.txt", "not json\n");
    dir.write("audit/2026-1-21.jsonl", "not json\n");
    auto batch = read_audit_log(dir.path() / "audit", {});
    ASSERT_TRUE(batch.ok());
    EXPECT_EQ(batch->records.size(), 1u);
    EXPECT_TRUE(batch->problems.empty());
}

// The page is read backwards in chunks: lines that straddle chunk boundaries come back whole, a
// line still being written is left out, the newest files are read first and the text filter
// applies.
TEST(AuditReader, APageIsTheNewestMatchingRecordsReadBackwards) {
    TempDir dir;
    const std::string padding(700, 'p');  // ~100 lines per 64 KiB chunk
    {
        std::ofstream older(dir.path() / "2026-11-20.jsonl");
        for (int i = 0; i < 300; ++i)
            older << boost::json::serialize(boost::json::object{
                         {"ts", "2026-11-20T10:00:00.000Z"}, {"kind", "skill_call"}, {"n", i}, {"pad", padding}})
                  << "\n";
        std::ofstream newer(dir.path() / "2026-11-21.jsonl");
        for (int i = 300; i < 400; ++i)
            newer << boost::json::serialize(boost::json::object{{"ts", "2026-11-21T10:00:00.000Z"},
                                                                {"kind", i % 2 ? "skill_call" : "decision"},
                                                                {"n", i},
                                                                {"pad", padding}})
                  << "\n";
        newer << "{\"ts\":\"2026-11-21T10:00:01.000Z\",\"kind\":\"skill_c";  // unfinished
    }
    AuditFilter calls;
    calls.kind = "skill_call";
    auto page = read_audit_page(dir.path(), calls, 120);
    ASSERT_TRUE(page.ok()) << page.error().message;
    ASSERT_EQ(page->batch.records.size(), 120u);
    EXPECT_TRUE(page->more);
    EXPECT_TRUE(page->batch.problems.empty());
    // 50 odd records of the newer file, then the newest 70 of the older one, oldest first.
    EXPECT_EQ(page->batch.records.front().at("n").as_int64(), 230);
    EXPECT_EQ(page->batch.records[69].at("n").as_int64(), 299);
    EXPECT_EQ(page->batch.records[70].at("n").as_int64(), 301);
    EXPECT_EQ(page->batch.records.back().at("n").as_int64(), 399);

    auto everything = read_audit_page(dir.path(), {}, 100000);
    ASSERT_TRUE(everything.ok());
    EXPECT_EQ(everything->batch.records.size(), 400u);
    EXPECT_FALSE(everything->more);
    for (std::size_t i = 0; i < 400; ++i)
        ASSERT_EQ(everything->batch.records[i].at("n").as_int64(), static_cast<std::int64_t>(i));

    auto found =
        read_audit_page(dir.path(), {}, 10, [](const boost::json::object& r) { return contains_text(r, "\"n\":377"); });
    ASSERT_TRUE(found.ok());
    ASSERT_EQ(found->batch.records.size(), 1u);
    EXPECT_EQ(found->batch.records[0].at("n").as_int64(), 377);
}

}  // namespace
}  // namespace skillhost::audit
