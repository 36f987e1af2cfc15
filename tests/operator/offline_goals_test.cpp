// The built-in model as a new user meets it: a table of goals over the demo data (the tasks,
// memories and files `skillhost demo seed` writes), each run through the real operator with the real
// built-in plugins and the builtin backend, and judged by its effect on the data (read back through
// the plugins) or by what the answer must and must not say. The suite reports its pass rate.
#include "operator/operator_host.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>

namespace skillhost::testing {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using store::RunStatus;

const decisions::Resolver kAlice{"alice", auth::Role::standard};

// Local time `days_ago` days back at hour:minute, as the memory plugin reads it.
std::string local_time(int days_ago, int hour, int minute) {
    const std::time_t day = std::time(nullptr) - static_cast<std::time_t>(days_ago) * 24 * 3600;
    std::tm date{};
    localtime_r(&day, &date);
    char text[48];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:00", date.tm_year + 1900, date.tm_mon + 1, date.tm_mday,
                  hour, minute);
    return text;
}

std::string due_in(int days) {
    return local_time(-days, 12, 0).substr(0, 10);
}

// The demo data: the same tasks, memories and files as `skillhost demo seed`.
void seed_demo(OperatorHost& host) {
    const auto& ws = host.workspace();
    write_file(ws / "README.md",
               "# Harbor — community boat-share\n\nHarbor lets neighbours share small boats: book a slot, pick up the "
               "key from a lockbox,\nand log the trip when you are back.\n\n## Status\n\n- Booking calendar: done\n"
               "- Lockbox codes: in progress (see notes/lockbox.md)\n- Trip log: planned for December\n\n## Team\n\n"
               "Maya (product), Tomás (backend), Priya (mobile).\n");
    write_file(ws / "notes/lockbox.md",
               "# Lockbox codes\n\nCodes rotate every Monday at 06:00. The rotation job runs in the backend.\nOpen "
               "question: what happens to bookings that span a rotation? Tomás to propose a fix.\n");
    write_file(ws / "notes/meeting-notes.md",
               "# Weekly meeting\n\n- Launch date moved to 12 December.\n- Priya needs test devices for the mobile "
               "app.\n- Budget review with the council next Thursday.\n");
    write_file(ws / "docs/budget.csv", "item,amount_eur\nlockboxes,480\nboat maintenance,1250\ninsurance,900\n");

    const auto task = [&](const std::string& title, const std::string& priority, const std::string& tags, int due,
                          const std::string& notes) {
        json::object args{{"title", title}, {"priority", priority}, {"notes", notes}, {"tags", json::parse(tags)}};
        if (due >= 0) args["due"] = due_in(due);
        host.call("task_create", json::serialize(args));
    };
    task("Renew the boat insurance", "high", R"(["admin","finance"])", 5, "Policy ends at the end of the month.");
    task("Order two more lockboxes", "medium", R"(["hardware"])", 10, "");
    task("Review Tomás's lockbox rotation fix", "high", R"(["backend","review"])", 2, "See notes/lockbox.md.");
    task("Prepare the budget review for the council", "medium", R"(["finance"])", 7, "Numbers in docs/budget.csv.");
    task("Book test devices for Priya", "low", R"(["mobile"])", -1, "");

    const auto memory = [&](const std::string& text, const std::string& kind, const std::string& tags, int days_ago,
                            int hour, int minute) {
        host.call("memory_capture", json::serialize(json::object{{"text", text},
                                                                 {"kind", kind},
                                                                 {"tags", json::parse(tags)},
                                                                 {"timestamp", local_time(days_ago, hour, minute)}}));
    };
    memory("Team meeting: launch moved to 12 December; Priya needs test devices.", "event", R"(["meeting","work"])", 1,
           10, 0);
    memory("Called the insurer about renewing the boat insurance; they will send a quote.", "event", R"(["admin"])", 1,
           14, 30);
    memory("Reviewed the lockbox rotation design with Tomás.", "event", R"(["backend","meeting"])", 1, 16, 0);
    memory("Wrote the first draft of the council budget.", "event", R"(["finance"])", 0, 9, 15);
    memory("Kick-off meeting with the harbour master about mooring slots.", "event", R"(["meeting"])", 8, 11, 0);
    memory("The council prefers budgets as a one-page PDF.", "note", R"(["finance"])", 3, 12, 0);
    memory("When booking devices, ask Priya which OS versions she needs first.", "guidance", R"(["mobile"])", 2, 15, 0);
}

// A task read back through the tasks plugin, by exact title; null when there is none.
json::value task_titled(OperatorHost& host, const std::string& title) {
    auto all = host.call("task_list", R"({"include_completed":true,"limit":100})");
    for (const auto& task : all.output.at("tasks").as_array()) {
        if (task.at("title").as_string() == title) return task;
    }
    return nullptr;
}

std::size_t task_count(OperatorHost& host) {
    auto all = host.call("task_list", R"({"include_completed":true,"limit":100})");
    return all.output.at("tasks").as_array().size();
}

// Makes a stateful plugin fail on every call: the tasks and memory plugins keep their data in the
// host's storage and import a tasks.db / memory.db an older version left in their data directory,
// so a damaged file there fails each call (the import cannot read it and keeps it for the user).
void break_database(OperatorHost& host, const std::string& name) {
    const std::string plugin = name == "tasks.db" ? "tasks" : "memory";
    for (const auto& user : fs::directory_iterator(host.home() / "users"))
        if (fs::is_directory(user.path() / "plugins" / plugin))
            std::ofstream(user.path() / "plugins" / plugin / name, std::ios::trunc) << "this is not a database\n";
}

using Effect = std::function<std::string(OperatorHost&, const store::Run&)>;  // empty: as expected

struct Goal {
    std::string category;
    std::string goal;
    std::vector<std::string> must;      // the answer contains each
    std::vector<std::string> must_not;  // the answer contains none
    Effect effect = nullptr;
    std::function<void(OperatorHost&)> setup = nullptr;
    RunStatus status = RunStatus::completed;
};

Effect task_field(std::string title, std::string field, std::string value) {
    return [=](OperatorHost& host, const store::Run&) -> std::string {
        const auto task = task_titled(host, title);
        if (task.is_null()) return "no task titled '" + title + "'";
        const auto& got = task.at(field);
        const std::string text = got.is_string() ? std::string(got.as_string()) : json::serialize(got);
        return text == value ? "" : title + "." + field + " is " + text + ", expected " + value;
    };
}

Effect nothing_changed() {
    return [](OperatorHost& host, const store::Run&) -> std::string {
        auto all = host.call("task_list", R"({"include_completed":true,"limit":100})");
        for (const auto& task : all.output.at("tasks").as_array()) {
            if (task.at("status").as_string() != "open")
                return "task " + json::serialize(task.at("title")) + " changed";
        }
        return task_count(host) == 5 ? "" : "the number of tasks changed";
    };
}

Effect file_still_there(std::string path) {
    return [=](OperatorHost& host, const store::Run&) -> std::string {
        return fs::exists(host.workspace() / path) ? "" : path + " was removed";
    };
}

std::vector<Goal> goals() {
    const std::string marker = "answered by the built-in model";
    return {
        // Lookups: one read answers them.
        {"lookup", "What's on my task list?", {"Renew the boat insurance", "Book test devices for Priya"}, {}},
        {"lookup", "What tasks do I have?", {"Order two more lockboxes", "Prepare the budget review"}, {}},
        {"lookup",
         "Show only my high priority tasks",
         {"Renew the boat insurance", "Review Tomás's lockbox"},
         {"Order two more lockboxes", "Book test devices"}},
        {"lookup", "Show me README.md", {"community boat-share", "Priya (mobile)"}, {}},
        {"lookup", "Read notes/lockbox.md", {"Codes rotate every Monday"}, {}},
        {"lookup", "What's in docs/budget.csv?", {"boat maintenance,1250"}, {}},
        {"lookup", "What did I do yesterday?", {"Called the insurer"}, {"Kick-off meeting", "one-page PDF"}},
        {"lookup", "What meetings happened yesterday?", {"Team meeting"}, {"Kick-off meeting"}},
        {"lookup", "Which task is due first?", {"Review Tomás's lockbox rotation fix"}, {}},
        {"lookup", "Find files mentioning budget", {"meeting-notes.md"}, {"lockbox.md"}},
        {"lookup",
         "List all markdown files",
         {"README.md", "notes/lockbox.md", "notes/meeting-notes.md"},
         {"budget.csv"}},
        {"lookup", "List the files in the notes folder", {"lockbox.md", "meeting-notes.md"}, {"README.md"}},
        {"lookup", "Search my memory for the insurer", {"Called the insurer"}, {"Kick-off"}},
        {"lookup", "Find my task about the budget", {"Prepare the budget review for the council"}, {"Renew the boat"}},
        {"lookup", "Which tasks mention Priya?", {"Book test devices for Priya"}, {"Renew the boat"}},
        {"lookup", "Hello!", {"Hello"}, {"Renew the boat"}},
        {"lookup", "Summarize my week", {"Called the insurer"}, {"none of the available skills"}},
        {"lookup", "What's due this week?", {"Review Tomás's lockbox rotation fix"}, {}},
        {"lookup",
         "Which tasks are about the lockbox?",
         {"Order two more lockboxes", "Review Tomás's lockbox"},
         {"Renew the boat"}},
        {"write",
         "Create a task to call the dentist",
         {"dentist"},
         {},
         task_field("call the dentist", "status", "open")},
        {"write",
         "Add a high priority task to renew the passport",
         {"passport"},
         {},
         task_field("renew the passport", "priority", "high")},
        {"write", "Remind me to call Priya tomorrow", {}, {}, task_field("call Priya tomorrow", "status", "open")},
        {"write",
         "Remember that the harbour master prefers e-mail",
         {},
         {},
         [](OperatorHost& host, const store::Run&) -> std::string {
             auto found = host.call("memory_search", R"({"query":"harbour master prefers"})");
             return json::serialize(found.output).find("prefers e-mail") != std::string::npos ? "" : "not remembered";
         }},

        // Find-then-act chains: the find's id feeds the change.
        {"chain",
         "Mark the boat insurance task as done",
         {"Renew the boat insurance"},
         {},
         task_field("Renew the boat insurance", "status", "done")},
        {"chain",
         "Find my unfinished tasks and rename the one about the budget to Budget review v2",
         {"now \"Budget review v2\" (id 4)"},
         {},
         [](OperatorHost& host, const store::Run& run) -> std::string {
             if (task_titled(host, "Budget review v2").is_null()) return "not renamed";
             if (!task_titled(host, "Prepare the budget review for the council").is_null())
                 return "old title still there";
             std::vector<std::string> tools;
             for (const auto& step : run.steps) {
                 if (step.action) tools.push_back(step.action->tool);
             }
             const std::vector<std::string> chain{"task_list", "task_find", "task_update"};
             return tools == chain ? "" : "the chain was not task_list → task_find → task_update";
         }},
        {"chain",
         "Set the priority of the lockbox rotation review to low",
         {},
         {},
         task_field("Review Tomás's lockbox rotation fix", "priority", "low")},
        {"chain",
         "Make the task about test devices high priority",
         {},
         {},
         task_field("Book test devices for Priya", "priority", "high")},
        {"chain",
         "Tag the boat insurance task as paperwork",
         {"paperwork"},
         {},
         task_field("Renew the boat insurance", "tags", R"(["admin","finance","paperwork"])")},
        {"chain",
         "Start working on the lockbox rotation review",
         {},
         {},
         task_field("Review Tomás's lockbox rotation fix", "status", "in_progress")},
        {"chain",
         "Cancel the task about ordering lockboxes",
         {},
         {},
         task_field("Order two more lockboxes", "status", "cancelled")},
        {"chain",
         "Complete the task about renewing the boat insurance",
         {},
         {},
         task_field("Renew the boat insurance", "status", "done")},
        {"chain",
         "Move the lockbox rotation review to 2031-12-20",
         {},
         {},
         task_field("Review Tomás's lockbox rotation fix", "due", "2031-12-20")},
        {"chain",
         "Rename the task about test devices to \"Book Android test devices\"",
         {},
         {},
         task_field("Book Android test devices", "priority", "low")},

        {"chain",
         "Mark 'Renew the boat insurance' as done",
         {},
         {},
         task_field("Renew the boat insurance", "status", "done")},
        {"chain",
         "Rename \"Order two more lockboxes\" to \"Order three lockboxes\"",
         {},
         {},
         task_field("Order three lockboxes", "priority", "medium")},
        {"chain",
         "Change the priority of the budget review to high",
         {},
         {},
         task_field("Prepare the budget review for the council", "priority", "high")},
        {"chain",
         "Set the boat insurance task to in progress",
         {},
         {},
         task_field("Renew the boat insurance", "status", "in_progress")},
        {"chain", "Complete task 5", {}, {}, task_field("Book test devices for Priya", "status", "done")},
        {"chain",
         "Show my tasks and mark the insurance one as done",
         {},
         {},
         task_field("Renew the boat insurance", "status", "done")},
        {"chain",
         "Please finish the insurance renewal",
         {},
         {},
         task_field("Renew the boat insurance", "status", "done")},
        {"chain",
         "Give the budget task a high priority",
         {},
         {},
         task_field("Prepare the budget review for the council", "priority", "high")},
        {"chain", "Read the README file", {"community boat-share"}, {}},
        {"chain", "Open the lockbox file", {"Codes rotate every Monday"}, {}},
        {"chain", "Show me the budget file", {"boat maintenance,1250"}, {}},

        // Ambiguous or unknown references: ask, name the candidates, change nothing.
        {"ambiguous", "Delete all my tasks", {"Which task"}, {}, nothing_changed()},
        {"ambiguous",
         "Mark the lockbox task as done",
         {"Order two more lockboxes", "Review Tomás's lockbox rotation fix", "Which one"},
         {},
         nothing_changed()},
        {"ambiguous",
         "Mark the review task as done",
         {"Review Tomás's lockbox rotation fix", "Prepare the budget review for the council", "Which one"},
         {},
         nothing_changed()},
        {"ambiguous", "Rename the lockbox task to Order three lockboxes", {"Which one"}, {}, nothing_changed()},
        {"ambiguous", "Mark the dentist task as done", {"No task matches"}, {}, nothing_changed()},
        {"ambiguous", "Mark it as done", {"Which task"}, {}, nothing_changed()},

        // Entity questions: memory, tasks and files.
        {"entity",
         "What do you know about Priya?",
         {"Book test devices for Priya", "Priya needs test devices", "meeting-notes.md"},
         {"Kick-off"}},
        {"entity",
         "Tell me about Tomás",
         {"Reviewed the lockbox rotation design", "Review Tomás's lockbox rotation fix", "lockbox.md"},
         {}},
        {"entity", "Who is Maya?", {"README.md"}, {"Renew the boat"}},
        {"entity", "What did Priya say?", {"Priya needs test devices"}, {"Kick-off"}},
        {"entity", "What do you know about the insurer?", {"Called the insurer"}, {"Kick-off"}},

        {"entity",
         "Tell me everything about the lockbox",
         {"Reviewed the lockbox rotation design", "Order two more lockboxes", "notes/lockbox.md"},
         {}},
        {"entity", "What do you know about Harbor?", {"README.md"}, {}},

        // Answers inside files, notes and memories: searched, the best match read, the sentence or
        // row that answers cited.
        {"content",
         "When do the lockbox codes rotate?",
         {"Codes rotate every Monday at 06:00", "notes/lockbox.md"},
         {}},
        {"content", "What time do the codes rotate?", {"06:00", "notes/lockbox.md"}, {"Kick-off"}},
        {"content", "How much is budgeted for insurance?", {"insurance,900", "docs/budget.csv"}, {"Kick-off"}},
        {"content", "How much do the lockboxes cost?", {"lockboxes,480", "docs/budget.csv"}, {}},
        {"content", "What is the boat maintenance budget?", {"boat maintenance,1250"}, {"insurance,900"}},
        {"content", "What format does the council want the budget in?", {"one-page PDF"}, {"Kick-off"}},
        {"content",
         "Show me the meeting notes",
         {"Launch date moved to 12 December", "Budget review with the council next Thursday"},
         {"Kick-off", "Called the insurer"}},
        {"content", "When is the launch?", {"12 December"}, {"Kick-off", "insurance"}},
        {"content", "Did I talk to the insurer about anything?", {"Called the insurer"}, {"Kick-off"}},
        {"content", "Is the booking calendar done?", {"Booking calendar: done", "README.md"}, {}},
        {"content", "When is the trip log planned?", {"planned for December"}, {}},
        {"content", "What is the open question about the lockbox?", {"bookings that span a rotation"}, {}},
        {"content", "When is the budget review with the council?", {"next Thursday"}, {}},
        {"content", "Who is on the team?", {"Maya (product), Tomás (backend), Priya (mobile)", "README.md"}, {}},
        {"content", "When is the policy ending?", {"Policy ends at the end of the month"}, {}},
        {"content", "Who proposes the fix for the rotation?", {"Tomás to propose a fix", "notes/lockbox.md"}, {}},
        {"content", "Show me the budget", {"boat maintenance,1250", "insurance,900"}, {"Called the insurer"}},
        {"content", "When did I call the insurer?", {"Called the insurer", "2026-"}, {"Kick-off"}},
        {"content", "When did I write the budget draft?", {"Wrote the first draft of the council budget"}, {}},
        {"content", "Where are the lockbox codes documented?", {"notes/lockbox.md"}, {}},
        {"content", "When is the regatta?", {"None of the available skills has data", "regatta"}, {"Kick-off"}},

        // Impossible requests: say so, name the closest skills, do nothing.
        {"impossible",
         "Translate the README into French",
         {"none of the available skills can translate"},
         {},
         nothing_changed()},
        {"impossible", "Restart the web server", {"none of the available skills can restart"}, {}, nothing_changed()},
        {"impossible",
         "Set an alarm for 7am",
         {"none of the available skills can set an alarm"},
         {},
         nothing_changed()},
        {"impossible", "Write a poem", {"none of the available skills can write"}, {}, nothing_changed()},
        {"impossible", "What's the weather in Lisbon?", {"None of the available skills has data"}, {}},
        {"impossible", "Email Tomás the budget", {"none of the available skills can email"}, {}, nothing_changed()},
        {"impossible",
         "Delete the file notes/lockbox.md",
         {"none of the available skills can delete files", "fs_"},
         {"I found no data"},
         file_still_there("notes/lockbox.md")},
        {"impossible",
         "Send an email to Priya about the launch",
         {"none of the available skills can send an email"},
         {"sent"},
         nothing_changed()},
        {"impossible", "Book a flight to Lisbon", {"none of the available skills can book"}, {}, nothing_changed()},
        {"impossible",
         "Rename the file README.md to README.txt",
         {"none of the available skills can rename files"},
         {},
         file_still_there("README.md")},
        {"impossible",
         "Delete my memory about the insurer",
         {"none of the available skills can delete memories"},
         {},
         [](OperatorHost& host, const store::Run&) -> std::string {
             auto found = host.call("memory_search", R"({"query":"insurer"})");
             return found.output.at("results").as_array().empty() ? "the memory is gone" : "";
         }},

        // Broken skills and missing data: the error is observed and an alternative is suggested.
        {"broken",
         "What tasks do I have?",
         {"task_list failed", "Suggested"},
         {"Renew the boat"},
         nullptr,
         [](OperatorHost& host) { break_database(host, "tasks.db"); }},
        {"broken",
         "Mark the boat insurance task as done",
         {"failed", "nothing was changed"},
         {},
         nullptr,
         [](OperatorHost& host) { break_database(host, "tasks.db"); }},
        {"broken",
         "What did I do yesterday?",
         {"failed"},
         {"Called the insurer"},
         nullptr,
         [](OperatorHost& host) { break_database(host, "memory.db"); }},
        {"broken", "Show me lockbox.md", {"notes/lockbox.md"}, {}},
        {"broken",
         "When is the launch?",
         {"Launch date moved to 12 December", "memory_search failed"},
         {},
         nullptr,
         [](OperatorHost& host) { break_database(host, "memory.db"); }},

    };
}

std::string judge(const Goal& goal) {
    OperatorHost host;
    seed_demo(host);
    if (goal.setup) goal.setup(host);
    auto run = host.op().run(goal.goal, host.user());
    if (!run.ok()) return "the run could not be stored: " + run.error().message;
    if (run->status != goal.status)
        return "status " + std::string(store::to_string(run->status)) + ": " + json::serialize(run->to_json());
    for (const auto& text : goal.must) {
        if (run->answer.find(text) == std::string::npos) return "the answer lacks \"" + text + "\":\n" + run->answer;
    }
    for (const auto& text : goal.must_not) {
        if (run->answer.find(text) != std::string::npos) return "the answer has \"" + text + "\":\n" + run->answer;
    }
    if (goal.effect) {
        if (auto why = goal.effect(host, *run); !why.empty()) return why + "\nanswer:\n" + run->answer;
    }
    return {};
}

// The pass rate over every goal run in this process (all of them when the binary runs alone, as
// docs/operator.md shows); ctest runs one category per process.
struct Tally {
    std::size_t passed = 0;
    std::size_t total = 0;
};
Tally& tally() {
    static Tally counts;
    return counts;
}

class ReportPassRate final : public ::testing::Environment {
public:
    void TearDown() override {
        if (tally().total == 0) return;
        const double rate = static_cast<double>(tally().passed) / static_cast<double>(tally().total);
        std::cout << "offline goals: " << tally().passed << "/" << tally().total << " passed ("
                  << static_cast<int>(rate * 100.0 + 0.5) << "%)\n";
    }
};
[[maybe_unused]] ::testing::Environment* const kReport = ::testing::AddGlobalTestEnvironment(new ReportPassRate);

TEST(OfflineGoals, TheTableHasAtLeastFortyGoalsInEveryCategory) {
    const auto table = goals();
    EXPECT_GE(table.size(), 40u);
    std::map<std::string, int> counts;
    for (const auto& goal : table) ++counts[goal.category];
    for (const char* category :
         {"lookup", "write", "chain", "ambiguous", "entity", "content", "impossible", "broken"}) {
        EXPECT_GE(counts[category], 3) << category;
    }
}

// One category per test, so each stays well inside the per-test time limit (also under sanitizers).
class OfflineGoalCategory : public ::testing::TestWithParam<std::string> {};

TEST_P(OfflineGoalCategory, PassRate) {
    std::size_t passed = 0, total = 0;
    for (const auto& goal : goals()) {
        if (goal.category != GetParam()) continue;
        ++total;
        const std::string why = judge(goal);
        if (why.empty()) {
            ++passed;
        } else {
            std::cout << "[ FAILED GOAL ] (" << goal.category << ") " << goal.goal << ": " << why << "\n";
        }
    }
    ASSERT_GT(total, 0u);
    tally().passed += passed;
    tally().total += total;
    std::cout << GetParam() << ": " << passed << "/" << total << " goals passed\n";
    EXPECT_GE(static_cast<double>(passed) / static_cast<double>(total), 0.95);
}

INSTANTIATE_TEST_SUITE_P(DemoData, OfflineGoalCategory,
                         ::testing::Values("lookup", "write", "chain", "ambiguous", "entity", "content", "impossible",
                                           "broken"),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

// The chain that needs approval: the run pauses before the delete, and the approved call deletes the
// task found by description, exactly once.
TEST(OfflineGoals, ADeleteFoundByDescriptionWaitsForApprovalThenRuns) {
    OperatorHost host;
    seed_demo(host);
    auto run = host.op().run("Delete the task about ordering lockboxes", host.user());
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(run->status, RunStatus::awaiting_approval) << json::serialize(run->to_json());
    EXPECT_EQ(task_count(host), 5u);
    auto approved = host.pipeline().approve(host.catalog(), run->approval_id, kAlice);
    ASSERT_TRUE(approved.ok()) << approved.error().message;
    auto resumed = host.op().resume_after_approval(run->id);
    ASSERT_TRUE(resumed.ok()) << resumed.error().message;
    EXPECT_EQ(resumed->status, RunStatus::completed) << json::serialize(resumed->to_json());
    EXPECT_TRUE(task_titled(host, "Order two more lockboxes").is_null());
    EXPECT_EQ(task_count(host), 4u);
}

// The critic role on the builtin model approves grounded answers, so a critic-enabled host still
// answers offline.
TEST(OfflineGoals, TheBuiltinCriticApprovesAGroundedAnswer) {
    op::OperatorConfig config;
    config.critic = true;
    OperatorHost host({}, config);
    seed_demo(host);
    auto run = host.op().run("What do you know about Priya?", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed) << json::serialize(run->to_json());
    EXPECT_NE(run->answer.find("Book test devices for Priya"), std::string::npos);
}

// Data the test makes, not the demo's: the answer is found wherever it sits (a file's line, a CSV
// row, a memory of any kind), cited, and grounded; nothing else is shown.
TEST(OfflineGoals, AnswersInsideDataTheTestWrites) {
    OperatorHost host;
    write_file(host.workspace() / "travel/ferry.md",
               "# Ferry\n\nThe ferry to the island leaves at 07:45 from pier 3.\nBikes travel free.\n");
    write_file(host.workspace() / "inventory/boats.csv", "boat,count\nkayaks,4\ndinghies,2\n");
    host.call("memory_capture", R"({"text":"The harbour master prefers calls before 9 am.","kind":"guidance"})");
    host.call("memory_capture", R"({"text":"Lunch with Sam at the yacht club.","kind":"event"})");
    const auto ask = [&](const std::string& goal) {
        auto run = host.op().run(goal, host.user());
        EXPECT_TRUE(run.ok());
        EXPECT_EQ(run->status, RunStatus::completed) << json::serialize(run->to_json());
        EXPECT_EQ(run->grounding.outcome, "passed") << run->answer;
        return run->answer;
    };
    const std::string ferry = ask("When does the ferry leave?");
    EXPECT_NE(ferry.find("The ferry to the island leaves at 07:45 from pier 3. (travel/ferry.md, line 3)"),
              std::string::npos)
        << ferry;
    EXPECT_EQ(ferry.find("Lunch"), std::string::npos) << ferry;
    const std::string kayaks = ask("How many kayaks do we have?");
    EXPECT_NE(kayaks.find("kayaks,4 (inventory/boats.csv, line 2; columns boat,count)"), std::string::npos) << kayaks;
    const std::string harbour = ask("When does the harbour master like to be called?");
    EXPECT_NE(harbour.find("prefers calls before 9 am"), std::string::npos) << harbour;
    const std::string nothing = ask("Where is the lighthouse key?");
    EXPECT_NE(nothing.find("None of the available skills has data"), std::string::npos) << nothing;
    EXPECT_NE(nothing.find("fs_search"), std::string::npos) << nothing;
}

}  // namespace
}  // namespace skillhost::testing
