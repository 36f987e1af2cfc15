// Every host extension the SDK headers publish has a module (host/plugin/extensions/) and works the
// same for a plugin isolated in a runner as for one in the host: the `extension_probe` fixture
// uses each published extension once, in both modes, with a real storage on SQLite, path rules and
// a front end that answers questions and hears log lines; the answers and what the front end saw
// must be equal and right.
#include "app/plugin_storage_service.hpp"
#include "isolation_test_support.hpp"
#include "plugin/extensions/host_extension.hpp"

#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace skillhost::plugin::testing {
namespace {

// The ids the SDK headers publish as host extensions: the `"skillhost.x/n" — host extension` lines.
std::set<std::string> published_host_extensions() {
    std::set<std::string> ids;
    const std::filesystem::path include = std::filesystem::path(SKILLHOST_SDK_INCLUDE_DIR) / "skillhost";
    for (const auto& entry : std::filesystem::directory_iterator(include)) {
        if (entry.path().extension() != ".h") continue;
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            const auto marker = line.find("\" — host extension");
            const auto open = line.find(" * \"skillhost.");
            if (marker == std::string::npos || open != 0) continue;
            ids.insert(line.substr(4, marker - 4));
        }
    }
    return ids;
}

TEST(HostExtensionModules, EveryPublishedHostExtensionHasOneModuleAndNoModuleIsUnpublished) {
    const std::set<std::string> published = published_host_extensions();
    ASSERT_GE(published.size(), 7u) << "the headers' extension lines were not found; did their format change?";
    std::set<std::string> modules;
    for (const HostExtension* extension : host_extensions()) {
        EXPECT_TRUE(modules.insert(std::string(extension->id)).second) << "two modules for " << extension->id;
        EXPECT_NE(extension->table, nullptr) << extension->id;
        if (extension->answered_by_host) {
            EXPECT_NE(extension->answer, nullptr) << extension->id << " is answered by the host but has no answer()";
            EXPECT_NE(extension->unavailable, nullptr) << extension->id;
            EXPECT_NE(extension->failed, nullptr) << extension->id;
        }
        EXPECT_EQ(find_host_extension(extension->id), extension);
    }
    EXPECT_EQ(modules, published);
    EXPECT_EQ(find_host_extension("skillhost.nonexistent/1"), nullptr);
}

class FixedModel final : public CompletionService {
public:
    Result<std::string> complete(const CompletionOrigin& origin, std::string_view role, std::string_view) override {
        std::lock_guard lock(mutex);
        asked.push_back(std::string(origin.user_id) + "|" + std::string(origin.run_id) + "|" + std::string(role));
        return std::string(R"({"content":"yes","model":"fixed","backend":"test"})");
    }
    std::mutex mutex;
    std::vector<std::string> asked;
};

// The call's front end: answers every question with a name, and keeps the log lines it hears.
class RecordingFrontEnd final : public CallServices {
public:
    void log(skillhost_log_level level, std::string_view message) override {
        std::lock_guard lock(mutex);
        lines.push_back(std::to_string(level) + " " + std::string(message));
    }
    Result<std::string> elicit(std::string_view request_json, const std::atomic<bool>&) override {
        std::lock_guard lock(mutex);
        questions.emplace_back(request_json);
        return std::string(R"({"action":"accept","content":{"name":"Ada"}})");
    }
    std::mutex mutex;
    std::vector<std::string> lines, questions;
};

// What one use of an extension gave: the probe's report, the content items and what the front end saw.
struct Observed {
    boost::json::object report;
    std::string content;
    std::vector<std::string> lines, questions, model_asked;
};

class HostExtensionsTest : public IsolationTest {
protected:
    Observed use(IsolationMode mode, const std::string& id) {
        options.isolation.default_mode = mode;
        auto model = std::make_shared<FixedModel>();
        options.completions = model;
        auto storage = app::PluginStorageService::open(
            db::StorageLocation::sqlite(home.path() / (std::string(to_string(mode)) + ".db")));
        EXPECT_TRUE(storage.ok()) << storage.error().message;
        if (storage) options.storage = storage.value();
        auto plugin = load("extension_probe");
        EXPECT_TRUE(plugin);
        if (!plugin) return {};
        EXPECT_EQ(plugin->isolated(), mode == IsolationMode::process);

        auto front_end = std::make_shared<RecordingFrontEnd>();
        CallControl control;
        control.services = front_end;
        control.path_allowed = [](std::string_view path) { return path.find("/.ssh") == std::string_view::npos; };
        Call call = context("use", "alice", &control);
        call.idempotency_key = "run-7:2";
        call.run_id = "run-7";
        control.call = &call;
        const RawOutcome outcome = plugin->invoke(call, R"({"extension":")" + id + R"("})");
        EXPECT_EQ(outcome.written, RawOutcome::Written::result)
            << id << " in " << to_string(mode) << ": " << outcome.error_code << ": " << outcome.error_message;
        Observed observed;
        if (outcome.written == RawOutcome::Written::result)
            observed.report = boost::json::parse(outcome.result_json).as_object();
        observed.content = boost::json::serialize(control.content.take());
        std::lock_guard lock(front_end->mutex);
        observed.lines = front_end->lines;
        observed.questions = front_end->questions;
        std::lock_guard model_lock(model->mutex);
        observed.model_asked = model->asked;
        return observed;
    }
};

TEST_F(HostExtensionsTest, EveryPublishedHostExtensionWorksTheSameInARunnerAsInTheHost) {
    for (const std::string& id : published_host_extensions()) {
        SCOPED_TRACE(id);
        const Observed in_host = use(IsolationMode::in_process, id);
        const Observed isolated = use(IsolationMode::process, id);
        EXPECT_EQ(in_host.report.if_contains("offered") ? in_host.report.at("offered") : nullptr, true)
            << "the host does not offer " << id;
        EXPECT_EQ(boost::json::serialize(isolated.report), boost::json::serialize(in_host.report));
        EXPECT_EQ(isolated.content, in_host.content);
        EXPECT_EQ(isolated.lines, in_host.lines);
        EXPECT_EQ(isolated.questions, in_host.questions);
        EXPECT_EQ(isolated.model_asked, in_host.model_asked);

        // And each answer is the right one, not merely the same twice.
        const boost::json::value* use = in_host.report.if_contains("use");
        ASSERT_NE(use, nullptr);
        const std::string answer = boost::json::serialize(*use);
        if (id == SKILLHOST_EXT_LLM) {
            EXPECT_THAT(answer, ::testing::HasSubstr(R"("content":"yes")"));
            EXPECT_EQ(in_host.model_asked, (std::vector<std::string>{"alice|run-7|probe"}));
        } else if (id == SKILLHOST_EXT_PATH_CHECK) {
            EXPECT_EQ(answer, R"({"secret":false,"plain":true})");
        } else if (id == SKILLHOST_EXT_CONTENT) {
            EXPECT_EQ(answer, R"({"status":0})");
            EXPECT_EQ(in_host.content, R"([{"type":"text","text":"from the probe"}])");
        } else if (id == SKILLHOST_EXT_ELICIT) {
            EXPECT_THAT(answer, ::testing::HasSubstr(R"("name":"Ada")"));
            ASSERT_EQ(in_host.questions.size(), 1u);
            EXPECT_THAT(in_host.questions[0], ::testing::HasSubstr("Your name?"));
        } else if (id == SKILLHOST_EXT_IDEMPOTENCY) {
            EXPECT_EQ(answer, R"("run-7:2")");
        } else if (id == SKILLHOST_EXT_STORAGE) {
            EXPECT_THAT(answer,
                        ::testing::HasSubstr(R"("get":{"status":0,"answer":{"found":true,"key":"k","value":{"n":1})"));
        } else if (id == SKILLHOST_EXT_CALL_LOG) {
            EXPECT_EQ(in_host.lines, (std::vector<std::string>{"2 probe line from a thread"}));
        } else {
            ADD_FAILURE() << "this test does not know what " << id << " should answer; add a case";
        }
    }
}

}  // namespace
}  // namespace skillhost::plugin::testing
