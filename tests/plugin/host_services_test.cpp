// The services a plugin gets from the host: progress, cancellation, the per-call context, model
// completions and logging — exercised through real plugins, and directly with hostile inputs.
#include "app/router_completion_service.hpp"
#include "llm/model_router.hpp"
#include "llm/scripted_backend.hpp"
#include "plugin/call_control.hpp"
#include "plugin/host_services.hpp"
#include "plugin/result_capture.hpp"
#include "plugin_test_support.hpp"

#include <gmock/gmock.h>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

namespace skillhost::plugin {
namespace {

using ::testing::HasSubstr;
using testing::parse;
using ::testing::StartsWith;

class HostServicesTest : public testing::LoaderTest {};

TEST_F(HostServicesTest, ProgressReportsReachTheCallControl) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    CallControl control;
    std::vector<std::tuple<double, double, std::string>> reports;
    control.services = progress_listener([&](double done, double total, std::string_view message) {
        reports.emplace_back(done, total, std::string(message));
    });

    RawOutcome out = echo->invoke(context("progress", &control), "{}");

    ASSERT_EQ(out.written, RawOutcome::Written::result);
    ASSERT_EQ(reports.size(), 3u);
    EXPECT_EQ(reports[0], std::make_tuple(1.0, 3.0, std::string("first third")));
    EXPECT_EQ(reports[2], std::make_tuple(3.0, 3.0, std::string("done")));
}

TEST_F(HostServicesTest, ProgressWithoutControlIsHarmless) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    RawOutcome out = echo->invoke(context("progress"), "{}");
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    EXPECT_EQ(parse(out.result_json), parse(R"({"steps":3})"));
}

TEST_F(HostServicesTest, CancellationStopsASleepingSkill) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    CallControl control;
    const auto started = std::chrono::steady_clock::now();
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        control.cancelled = true;
    });

    RawOutcome out = echo->invoke(context("sleep", &control), R"({"ms":20000})");
    canceller.join();

    EXPECT_EQ(out.status, SKILLHOST_STATUS_CANCELLED);
    EXPECT_EQ(out.error_code, "CANCELLED");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST_F(HostServicesTest, PassedDeadlineCountsAsCancelled) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    Call call = context("sleep");
    call.deadline_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count() -
        1;
    RawOutcome out = echo->invoke(call, R"({"ms":20000})");
    EXPECT_EQ(out.status, SKILLHOST_STATUS_CANCELLED);
}

TEST_F(HostServicesTest, SleepFinishesWhenNotCancelled) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    CallControl control;
    RawOutcome out = echo->invoke(context("sleep", &control), R"({"ms":10})");
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    EXPECT_EQ(parse(out.result_json), parse(R"({"slept_ms":10})"));
}

TEST_F(HostServicesTest, SkillSeesItsCallContextAndDataDirExists) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    Call call = context("whoami");
    call.call_id = "call-42";
    call.user_id = "bob";
    call.cognitive_mode = "emulation";
    call.data_dir = home / "users" / "bob" / "plugins" / "echo";
    call.workspace_root = "/srv/workspaces/bob";
    call.deadline_unix_ms = 4102444800000;  // 2100-01-01
    ASSERT_FALSE(std::filesystem::exists(call.data_dir));

    RawOutcome out = echo->invoke(call, "{}");

    ASSERT_EQ(out.written, RawOutcome::Written::result) << out.error_message;
    EXPECT_EQ(parse(out.result_json),
              parse(R"({"user_id":"bob","cognitive_mode":"emulation","data_dir":")" + call.data_dir.string() +
                    R"(","data_dir_exists":true,"workspace_root":"/srv/workspaces/bob",)"
                    R"("call_id":"call-42","skill_id":"whoami","deadline_unix_ms":4102444800000})"));
    EXPECT_TRUE(std::filesystem::is_directory(call.data_dir));
}

TEST_F(HostServicesTest, UncreatableDataDirIsAnError) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    test::write_file(home / "a-file", "x");
    Call call = context("whoami");
    call.data_dir = home / "a-file" / "below";

    RawOutcome out = echo->invoke(call, "{}");

    EXPECT_EQ(out.status, SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(out.error_code, "DATA_DIR_UNAVAILABLE");
    EXPECT_THAT(out.error_message, HasSubstr(call.data_dir.string()));
}

TEST_F(HostServicesTest, CompletionWithoutModelIsUnavailable) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    RawOutcome out = echo->invoke(context("ask"), R"({"prompt":"hi","role":"persona"})");
    EXPECT_EQ(out.status, SKILLHOST_STATUS_ERROR);
    ASSERT_EQ(out.written, RawOutcome::Written::error);
    EXPECT_EQ(out.error_code, "LLM_UNAVAILABLE");
    EXPECT_THAT(out.error_message, HasSubstr("persona"));
}

// The real completion service over a real model router: "summarizer" goes to a scripted model
// (the one part tests may replace), "critic" to an Ollama server that is not there.
TEST_F(HostServicesTest, CompletionReachesTheModelTheRoleIsRoutedTo) {
    llm::ModelsConfig models = llm::default_models_config();
    llm::ModelSpec scripted;
    scripted.name = "scripted";
    scripted.backend = "scripted";
    models.models.emplace(scripted.name, scripted);
    llm::ModelSpec absent;
    absent.name = "absent";
    absent.backend = "ollama";
    absent.model = "llama3";
    absent.base_url = "http://127.0.0.1:1";  // nothing listens on port 1
    absent.retries = 0;
    models.models.emplace(absent.name, absent);
    models.roles["summarizer"] = "scripted";
    models.roles["critic"] = "absent";
    auto router = std::make_shared<llm::ModelRouter>(models);
    llm::ScriptEntry reply;
    reply.response = "four";
    auto script = llm::ScriptedBackend::create({reply});
    ASSERT_TRUE(script.ok());
    ASSERT_TRUE(router->set_backend("scripted", script.value()).ok());

    auto loaded =
        make_loader(std::make_shared<app::RouterCompletionService>(router)).load_file(test::fixture_manifest("echo"));
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;

    RawOutcome out = loaded.value()->invoke(context("ask"), R"({"prompt":"2+2?","role":"summarizer"})");
    ASSERT_EQ(out.written, RawOutcome::Written::result) << out.error_message;
    EXPECT_EQ(parse(out.result_json), parse(R"({"content":"four"})"));
    const auto requests = script.value()->requests();
    ASSERT_EQ(requests.size(), 1u);
    EXPECT_EQ(requests[0].role, "summarizer");
    ASSERT_FALSE(requests[0].messages.empty());
    EXPECT_EQ(requests[0].messages.back().content, "2+2?");

    RawOutcome failed = loaded.value()->invoke(context("ask"), R"({"prompt":"x","role":"critic"})");
    ASSERT_EQ(failed.written, RawOutcome::Written::error);
    EXPECT_THAT(failed.error_code, StartsWith("LLM_"));
    EXPECT_THAT(failed.error_message, HasSubstr("127.0.0.1:1"));
    EXPECT_EQ(script.value()->requests().size(), 1u) << "the critic's request must not reach the scripted model";
}

TEST_F(HostServicesTest, PluginLogLinesAreAttributedToThePlugin) {
    std::ostringstream captured;
    auto previous = spdlog::default_logger();
    auto logger =
        std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured));
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);

    auto plain = load_fixture("plain_c");  // logs "plain_c ready" at debug level from init()

    spdlog::set_default_logger(previous);
    ASSERT_TRUE(plain);
    EXPECT_THAT(captured.str(), HasSubstr("[plugin plain_c] plain_c ready"));
    EXPECT_THAT(captured.str(), HasSubstr("[debug]"));
}

// A buggy plugin may hand the services anything; none of it may crash the host.
TEST(HostServicesDirect, ToleratesNullAndEmptyInputs) {
    PluginHostContext host{.plugin_name = "direct"};
    skillhost_host_services services = make_host_services(host);
    EXPECT_EQ(services.struct_size, sizeof(skillhost_host_services));
    EXPECT_EQ(services.host_abi_version.major, 1u);

    services.log(services.host_context, SKILLHOST_LOG_INFO, {nullptr, 0});
    services.log(services.host_context, SKILLHOST_LOG_INFO, {nullptr, 12});
    services.log(nullptr, 99, {"x", 1});
    services.report_progress(services.host_context, nullptr, 1, 2, {nullptr, 5});
    EXPECT_EQ(services.is_cancelled(services.host_context, nullptr), 0);

    skillhost_call_context call{};
    call.struct_size = sizeof call;
    EXPECT_EQ(services.is_cancelled(services.host_context, &call), 0);
    services.report_progress(services.host_context, &call, 1, 2, {nullptr, 0});
    CallControl control;
    call.host_call = &control;
    EXPECT_EQ(services.is_cancelled(services.host_context, &call), 0);
    control.cancelled = true;
    EXPECT_EQ(services.is_cancelled(services.host_context, &call), 1);

    EXPECT_EQ(services.complete(services.host_context, nullptr, {nullptr, 0}, {nullptr, 0}, nullptr),
              SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(services.complete(nullptr, &call, {"r", 1}, {"{}", 2}, nullptr), SKILLHOST_STATUS_UNAVAILABLE);
}

// The storage table answers whatever a buggy plugin passes with a status, never a crash.
TEST(HostServicesDirect, StorageToleratesNullAndEmptyInputs) {
    PluginHostContext host{.plugin_name = "direct"};
    skillhost_host_services services = make_host_services(host);
    const auto* storage =
        static_cast<const skillhost_storage_v1*>(services.get_extension(services.host_context, SKILLHOST_EXT_STORAGE));
    ASSERT_NE(storage, nullptr);
    void* ctx = services.host_context;
    const skillhost_string_view c{"c", 1}, k{"k", 1}, none{nullptr, 0}, bad{nullptr, 3};
    // Outside a call (and with no storage at all): unavailable, with or without a writer.
    EXPECT_EQ(storage->get(ctx, nullptr, c, k, nullptr), SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(storage->put(nullptr, nullptr, none, none, none, -1, nullptr), SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(storage->remove(ctx, nullptr, c, k, 0, nullptr), SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(storage->list(ctx, nullptr, c, none, none, 10, nullptr), SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(storage->next_id(ctx, nullptr, c, nullptr), SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(storage->batch(ctx, nullptr, none, nullptr), SKILLHOST_STATUS_UNAVAILABLE);
    skillhost_call_context call{};
    call.struct_size = sizeof call;
    CallControl control;
    call.host_call = &control;
    ResultCapture capture;
    EXPECT_EQ(storage->get(ctx, &call, c, k, capture.writer()), SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(capture.take().error_code, "STORAGE_UNAVAILABLE");
    // A null pointer with a size is refused before anything reads it.
    ResultCapture refused;
    EXPECT_EQ(storage->get(ctx, &call, c, bad, refused.writer()), SKILLHOST_STATUS_INVALID_ARGS);
    EXPECT_EQ(refused.take().error_code, "STORAGE_INVALID");
    EXPECT_EQ(storage->batch(ctx, &call, bad, nullptr), SKILLHOST_STATUS_INVALID_ARGS);
    // An argument larger than any request may be is refused by its size, before it is copied.
    const std::string huge(SKILLHOST_STORAGE_MAX_BATCH_BYTES + 1, 'x');
    ResultCapture too_large;
    EXPECT_EQ(storage->put(ctx, &call, c, k, {huge.data(), huge.size()}, -1, too_large.writer()),
              SKILLHOST_STATUS_INVALID_ARGS);
    const RawOutcome refused_value = too_large.take();
    EXPECT_EQ(refused_value.error_code, "STORAGE_TOO_LARGE");
    EXPECT_THAT(refused_value.error_details_json, HasSubstr(R"("limit":"value")"));
}

TEST(HostServicesDirect, ThrowingProgressListenerDoesNotEscape) {
    PluginHostContext host{.plugin_name = "direct"};
    skillhost_host_services services = make_host_services(host);
    CallControl control;
    std::vector<double> heard;
    control.services = progress_listener([&heard](double progress, double, std::string_view) {
        heard.push_back(progress);
        throw std::runtime_error("listener broke");
    });
    skillhost_call_context call{};
    call.host_call = &control;
    // An escaping exception would terminate the process here (the services are noexcept C functions).
    services.report_progress(services.host_context, &call, 1, 2, {"m", 1});
    services.report_progress(services.host_context, &call, 2, 2, {"m", 1});
    // Both reports reached the listener: the first throw did not disable or skip anything.
    EXPECT_EQ(heard, (std::vector<double>{1, 2}));
    EXPECT_EQ(services.is_cancelled(services.host_context, &call), 0);
}

}  // namespace
}  // namespace skillhost::plugin
