// Drives a plugin written with skill.hpp through the raw C ABI, as the host does: the plugin is its
// own shared library, loaded with dlopen; the test plays the host's side of the ABI (the writer and
// the services table) to see what reaches the writer for each way a skill can end, and what the
// Call object shows of the context and services.
#include "skill_test_plugin.hpp"

#include <skillhost/json.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using skillhost::Json;

skillhost_string_view view(std::string_view s) {
    return {s.data(), s.size()};
}
std::string str(skillhost_string_view s) {
    return s.data ? std::string(s.data, s.size) : std::string();
}

// The host's side of skillhost_result_writer: records every write so a test can check that
// exactly one happened.
struct RecordingWriter {
    int writes = 0;
    bool is_error = false;
    std::string result, code, message, details;

    static void on_result(void* self_ptr, skillhost_string_view json) {
        auto* self = static_cast<RecordingWriter*>(self_ptr);
        if (self->writes++ == 0) self->result = str(json);
    }
    static void on_error(void* self_ptr, skillhost_string_view code, skillhost_string_view message,
                         skillhost_string_view details) {
        auto* self = static_cast<RecordingWriter*>(self_ptr);
        if (self->writes++ == 0) {
            self->is_error = true;
            self->code = str(code);
            self->message = str(message);
            self->details = str(details);
        }
    }
    skillhost_result_writer writer() { return {this, &on_result, &on_error, sizeof(skillhost_result_writer)}; }
};

// The test plugin's library, loaded with dlopen for one test and unloaded after it (so every test
// starts with fresh static state, as a freshly loaded plugin does).
class TestPluginLibrary {
public:
    TestPluginLibrary() : handle_(::dlopen(SKILLHOST_SDK_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL)) {
        if (!handle_) throw std::runtime_error(std::string("dlopen failed: ") + ::dlerror());
        entry_ = reinterpret_cast<const skillhost_plugin* (*)()>(::dlsym(handle_, "skillhost_plugin_entry"));
        counters_ =
            reinterpret_cast<PluginHookCounters* (*)()>(::dlsym(handle_, SKILLHOST_TEST_PLUGIN_COUNTERS_SYMBOL));
        if (!entry_ || !counters_) throw std::runtime_error("the test plugin lacks an exported symbol");
        // glibc may keep a C++ library mapped after dlclose (unique symbols), so an earlier test's
        // counts and flags would still be there when the whole binary runs in one process.
        *counters_() = PluginHookCounters{};
    }
    ~TestPluginLibrary() { ::dlclose(handle_); }
    TestPluginLibrary(const TestPluginLibrary&) = delete;
    TestPluginLibrary& operator=(const TestPluginLibrary&) = delete;

    const skillhost_plugin* entry() const { return entry_(); }
    PluginHookCounters& counters() const { return *counters_(); }

private:
    void* handle_;
    const skillhost_plugin* (*entry_)() = nullptr;
    PluginHookCounters* (*counters_)() = nullptr;
};

// A host-services table whose functions record what the plugin asked for.
struct FakeHost {
    std::vector<std::pair<int, std::string>> log_lines;
    std::vector<double> progress_reports;
    int cancel_after_polls = -1;  // -1: never cancel
    int polls = 0;
    const skillhost_call_context* last_call = nullptr;
    std::string completion_role, completion_request;
    std::string completion_answer = R"({"content":"a summary","model":"m","backend":"scripted"})";
    bool completion_available = true;
    skillhost_host_services services{};

    FakeHost() {
        services.struct_size = sizeof(skillhost_host_services);
        services.host_abi_version = SKILLHOST_ABI_VERSION_INIT;
        services.host_context = this;
        services.log = [](void* ctx, skillhost_log_level level, skillhost_string_view message) {
            static_cast<FakeHost*>(ctx)->log_lines.emplace_back(level, str(message));
        };
        services.report_progress = [](void* ctx, const skillhost_call_context* call, double progress, double,
                                      skillhost_string_view) {
            auto* self = static_cast<FakeHost*>(ctx);
            self->last_call = call;
            self->progress_reports.push_back(progress);
        };
        services.is_cancelled = [](void* ctx, const skillhost_call_context* call) -> int32_t {
            auto* self = static_cast<FakeHost*>(ctx);
            self->last_call = call;
            ++self->polls;
            return self->cancel_after_polls >= 0 && self->polls > self->cancel_after_polls ? 1 : 0;
        };
        services.complete = [](void* ctx, const skillhost_call_context* call, skillhost_string_view role,
                               skillhost_string_view request, const skillhost_result_writer* w) -> skillhost_status {
            auto* self = static_cast<FakeHost*>(ctx);
            self->last_call = call;
            self->completion_role = str(role);
            self->completion_request = str(request);
            if (!self->completion_available) {
                w->write_error(w->writer_context, view("LLM_UNAVAILABLE"), view("no model serves role summarizer"),
                               view(""));
                return SKILLHOST_STATUS_UNAVAILABLE;
            }
            w->write_result(w->writer_context, view(self->completion_answer));
            return SKILLHOST_STATUS_OK;
        };
    }
};

class SkillBoundary : public ::testing::Test {
protected:
    void SetUp() override {
        plugin_ = library_.entry();
        ASSERT_NE(plugin_, nullptr);
        RecordingWriter init_errors;
        skillhost_result_writer w = init_errors.writer();
        ASSERT_EQ(plugin_->init(&host_.services, &state_, &w), SKILLHOST_STATUS_OK);
        EXPECT_EQ(init_errors.writes, 0);
        context_.struct_size = sizeof(skillhost_call_context);
        context_.call_id = view(call_id_);
        context_.user_id = view(user_);
        context_.cognitive_mode = view(mode_);
        context_.data_dir = view(data_dir_);
        context_.workspace_root = view(workspace_);
    }
    void TearDown() override { plugin_->shutdown(state_); }

    const skillhost_skill& skill(std::string_view id) const {
        for (uint32_t i = 0; i < plugin_->skill_count; ++i)
            if (id == plugin_->skills[i].id) return plugin_->skills[i];
        throw std::runtime_error("test plugin has no skill " + std::string(id));
    }

    // Invokes a skill; returns its status and leaves what was written in `out`.
    skillhost_status invoke(std::string_view id, std::string_view args, RecordingWriter& out) {
        context_.skill_id = view(id);
        skillhost_result_writer w = out.writer();
        return skill(id).invoke(state_, &context_, view(args), &w);
    }

    TestPluginLibrary library_;
    FakeHost host_;
    const skillhost_plugin* plugin_ = nullptr;
    void* state_ = nullptr;
    std::string call_id_ = "call-42", user_ = "alice", mode_ = "emulation";
    std::string data_dir_ = "/tmp/home/users/alice/plugins/sdk_test_plugin", workspace_ = "/work/alice";
    skillhost_call_context context_{};
};

TEST_F(SkillBoundary, DescriptorCarriesVersionNameAndSkillsInOrder) {
    EXPECT_EQ(library_.entry(), plugin_);  // the same static descriptor every time
    EXPECT_EQ(plugin_->abi_version.major, uint32_t{SKILLHOST_ABI_VERSION_MAJOR});
    EXPECT_EQ(plugin_->abi_version.minor, uint32_t{SKILLHOST_ABI_VERSION_MINOR});
    EXPECT_EQ(plugin_->abi_version.patch, uint32_t{SKILLHOST_ABI_VERSION_PATCH});
    EXPECT_EQ(plugin_->struct_size, sizeof(skillhost_plugin));
    EXPECT_STREQ(plugin_->name, "sdk_test_plugin");
    EXPECT_STREQ(plugin_->version, "2.3.4");
    const std::vector<std::string> expected = {"echo_context",    "fail_with_code",      "fail_with_scalar_details",
                                               "read_integer",    "throw_std_exception", "throw_non_exception",
                                               "wait_for_cancel", "ask_model",           "log_line"};
    ASSERT_EQ(plugin_->skill_count, expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(plugin_->skills[i].id, expected[i]);
        EXPECT_NE(plugin_->skills[i].invoke, nullptr);
    }
    EXPECT_NE(plugin_->init, nullptr);
    EXPECT_NE(plugin_->shutdown, nullptr);
}

TEST_F(SkillBoundary, CallAccessorsReadTheContext) {
    context_.deadline_unix_ms = 1'900'000'000'123;
    RecordingWriter out;
    ASSERT_EQ(invoke("echo_context", R"({"x":[1,2]})", out), SKILLHOST_STATUS_OK);
    ASSERT_EQ(out.writes, 1);
    ASSERT_FALSE(out.is_error) << out.code << ": " << out.message;
    Json r = Json::parse(out.result);
    EXPECT_EQ(r["skill_id"].as_string(), "echo_context");
    EXPECT_EQ(r["call_id"].as_string(), "call-42");
    EXPECT_EQ(r["user_id"].as_string(), "alice");
    EXPECT_EQ(r["cognitive_mode"].as_string(), "emulation");
    EXPECT_EQ(r["data_dir"].as_string(), data_dir_);
    EXPECT_EQ(r["workspace_root"].as_string(), "/work/alice");
    EXPECT_EQ(r["deadline_ms"].as_int(), 1'900'000'000'123);
    EXPECT_EQ(r["args"], Json::parse(R"({"x":[1,2]})"));
}

TEST_F(SkillBoundary, NoDeadlineAndEmptyViewsReadAsAbsent) {
    context_.deadline_unix_ms = 0;
    context_.workspace_root = {nullptr, 0};
    RecordingWriter out;
    ASSERT_EQ(invoke("echo_context", "{}", out), SKILLHOST_STATUS_OK);
    Json r = Json::parse(out.result);
    EXPECT_TRUE(r["deadline_ms"].is_null());
    EXPECT_EQ(r["workspace_root"].as_string(), "");
}

TEST_F(SkillBoundary, SkillErrorBecomesItsCodeMessageAndDetails) {
    RecordingWriter out;
    EXPECT_EQ(invoke("fail_with_code", R"({"id":7})", out), SKILLHOST_STATUS_ERROR);
    ASSERT_EQ(out.writes, 1);
    ASSERT_TRUE(out.is_error);
    EXPECT_EQ(out.code, "NOTE_MISSING");
    EXPECT_EQ(out.message, "no note with id 7; list the notes to find a valid id");
    EXPECT_EQ(Json::parse(out.details), Json::object({{"id", 7}}));
}

TEST_F(SkillBoundary, NonObjectDetailsAreWrappedIntoAnObject) {
    RecordingWriter out;
    EXPECT_EQ(invoke("fail_with_scalar_details", "{}", out), SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(out.code, "ODD_DETAILS");
    EXPECT_EQ(Json::parse(out.details), Json::object({{"value", "just text"}}));
}

TEST_F(SkillBoundary, WrongArgumentTypeBecomesInvalidArgs) {
    RecordingWriter out;
    EXPECT_EQ(invoke("read_integer", R"({"n":"seven"})", out), SKILLHOST_STATUS_INVALID_ARGS);
    ASSERT_EQ(out.writes, 1);
    EXPECT_EQ(out.code, "INVALID_ARGS");
    EXPECT_NE(out.message.find("expected an integer, got a string"), std::string::npos) << out.message;
    EXPECT_TRUE(out.details.empty());

    RecordingWriter fine;
    EXPECT_EQ(invoke("read_integer", R"({"n":7})", fine), SKILLHOST_STATUS_OK);
    EXPECT_EQ(fine.result, R"({"n":7})");
}

TEST_F(SkillBoundary, ArgumentsThatAreNotJsonBecomeInvalidArgsWithTheOffset) {
    RecordingWriter out;
    EXPECT_EQ(invoke("read_integer", R"({"n":})", out), SKILLHOST_STATUS_INVALID_ARGS);
    EXPECT_EQ(out.code, "INVALID_ARGS");
    EXPECT_NE(out.message.find("at byte 5"), std::string::npos) << out.message;
}

TEST_F(SkillBoundary, StandardExceptionBecomesPluginExceptionWithItsText) {
    RecordingWriter out;
    EXPECT_EQ(invoke("throw_std_exception", "{}", out), SKILLHOST_STATUS_ERROR);
    ASSERT_EQ(out.writes, 1);
    EXPECT_EQ(out.code, "PLUGIN_EXCEPTION");
    EXPECT_NE(out.message.find("disk on fire"), std::string::npos) << out.message;
}

TEST_F(SkillBoundary, AnythingElseThrownBecomesPluginException) {
    RecordingWriter out;
    EXPECT_EQ(invoke("throw_non_exception", "{}", out), SKILLHOST_STATUS_ERROR);
    ASSERT_EQ(out.writes, 1);
    EXPECT_EQ(out.code, "PLUGIN_EXCEPTION");
    EXPECT_FALSE(out.message.empty());
}

TEST_F(SkillBoundary, CancelledBecomesCancelledStatusAfterTheHostAsks) {
    host_.cancel_after_polls = 3;
    RecordingWriter out;
    EXPECT_EQ(invoke("wait_for_cancel", R"({"max_polls":100})", out), SKILLHOST_STATUS_CANCELLED);
    ASSERT_EQ(out.writes, 1);
    EXPECT_EQ(out.code, "CANCELLED");
    EXPECT_EQ(host_.polls, 4);
    EXPECT_EQ(host_.progress_reports, (std::vector<double>{0, 1, 2, 3}));
    EXPECT_EQ(host_.last_call, &context_);  // services receive the context of the running call
}

TEST_F(SkillBoundary, SkillRunsToTheEndWhenNeverCancelled) {
    RecordingWriter out;
    EXPECT_EQ(invoke("wait_for_cancel", R"({"max_polls":5})", out), SKILLHOST_STATUS_OK);
    EXPECT_EQ(out.result, R"({"finished":true})");
    EXPECT_EQ(host_.polls, 5);
}

TEST_F(SkillBoundary, CompleteSendsTheRequestAndReturnsTheContent) {
    RecordingWriter out;
    ASSERT_EQ(invoke("ask_model", R"({"prompt":"sum this"})", out), SKILLHOST_STATUS_OK) << out.message;
    EXPECT_EQ(host_.completion_role, "summarizer");
    EXPECT_EQ(Json::parse(host_.completion_request),
              Json::parse(R"({"messages":[{"role":"user","content":"sum this"}]})"));
    EXPECT_EQ(host_.last_call, &context_);
    EXPECT_EQ(out.result, R"({"answer":"a summary"})");
}

TEST_F(SkillBoundary, CompleteWithoutAModelSurfacesTheHostsError) {
    host_.completion_available = false;
    RecordingWriter out;
    EXPECT_EQ(invoke("ask_model", R"({"prompt":"x"})", out), SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(out.code, "LLM_UNAVAILABLE");
    EXPECT_EQ(out.message, "no model serves role summarizer");
}

TEST_F(SkillBoundary, MalformedCompletionAnswerIsNotMistakenForBadArguments) {
    host_.completion_answer = "not json";
    RecordingWriter out;
    EXPECT_EQ(invoke("ask_model", R"({"prompt":"x"})", out), SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(out.code, "LLM_INVALID_RESPONSE");

    host_.completion_answer = R"({"model":"m"})";
    RecordingWriter no_content;
    EXPECT_EQ(invoke("ask_model", R"({"prompt":"x"})", no_content), SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(no_content.code, "LLM_INVALID_RESPONSE");
}

TEST_F(SkillBoundary, CompleteWithoutTheServiceIsUnavailable) {
    host_.services.complete = nullptr;
    RecordingWriter out;
    EXPECT_EQ(invoke("ask_model", R"({"prompt":"x"})", out), SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(out.code, "LLM_UNAVAILABLE");
}

TEST_F(SkillBoundary, LogReachesTheHostWithItsLevel) {
    RecordingWriter out;
    ASSERT_EQ(invoke("log_line", R"({"text":"careful"})", out), SKILLHOST_STATUS_OK);
    ASSERT_EQ(host_.log_lines.size(), 1u);
    EXPECT_EQ(host_.log_lines[0].first, SKILLHOST_LOG_WARN);
    EXPECT_EQ(host_.log_lines[0].second, "careful");
}

TEST(SkillPluginLifecycle, InitHookRunsOnceAndShutdownIsSafeTwiceAndAfterReinit) {
    TestPluginLibrary library;
    FakeHost host;
    const skillhost_plugin* plugin = library.entry();
    RecordingWriter errors;
    skillhost_result_writer w = errors.writer();
    void* state = nullptr;
    EXPECT_EQ(library.counters().init_calls, 0);
    ASSERT_EQ(plugin->init(&host.services, &state, &w), SKILLHOST_STATUS_OK);
    EXPECT_EQ(library.counters().init_calls, 1);
    plugin->shutdown(state);
    plugin->shutdown(state);
    EXPECT_EQ(library.counters().shutdown_calls, 1);

    // The host may load the same library again after a shutdown.
    ASSERT_EQ(plugin->init(&host.services, &state, &w), SKILLHOST_STATUS_OK);
    EXPECT_EQ(library.counters().init_calls, 2);
    plugin->shutdown(state);
    EXPECT_EQ(library.counters().shutdown_calls, 2);
    EXPECT_EQ(errors.writes, 0);
}

TEST(SkillPluginLifecycle, InitHookThrowingSkillErrorRefusesTheLoadWithItsCode) {
    TestPluginLibrary library;
    library.counters().refuse_init = true;
    FakeHost host;
    const skillhost_plugin* plugin = library.entry();
    RecordingWriter errors;
    skillhost_result_writer w = errors.writer();
    void* state = nullptr;
    EXPECT_NE(plugin->init(&host.services, &state, &w), SKILLHOST_STATUS_OK);
    ASSERT_EQ(errors.writes, 1);
    EXPECT_EQ(errors.code, "CONFIG_MISSING");
    EXPECT_EQ(errors.message, "set the plugin's config first");
}

}  // namespace
