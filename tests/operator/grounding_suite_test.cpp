// The liar and truthful suites: a scripted model plans a read of the demo data, then, as the
// persona, answers — with one invented item (liar) or with a faithful paraphrase (truthful) — in
// every response style. Everything but the model is real: plugins, pipeline, operator, run store.
// The liar persona repeats its lie when asked to regenerate, so a caught lie is withheld.
// Task records carry the time they were created (now), so the invented dates and times over tasks
// lie before the fixture's dates (24 November 2026) and times are invented over memories: no test
// run date can make a lie true.
#include "operator/grounding_fixture.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <iostream>

namespace skillhost::testing {
namespace {

struct Case {
    std::string data;      // tasks, memories or a workspace file
    std::string answer;    // what the persona writes
    std::string invented;  // liar: text that one of the reported items contains
};

const std::vector<std::string> kStyles = {"default", "strict", "summary"};

const std::vector<Case> kLies = {
    // tasks
    {"tasks", "You have seven open tasks this week.", "seven"},
    {"tasks", "You have 9 tasks on your list.", "9"},
    {"tasks", "Your tasks:\n1. Renew the boat insurance\n2. Repaint the lighthouse\n3. Order two more lockboxes",
     "Repaint the lighthouse"},
    {"tasks", "- Renew the boat insurance\n- Call the harbour master\n- Book test devices for Priya",
     "Call the harbour master"},
    {"tasks", "\u2022 Order two more lockboxes\n\u2022 Fix the mooring chain", "Fix the mooring chain"},
    {"tasks", "* Prepare the budget review for the council\n* Paint the boat shed", "Paint the boat shed"},
    {"memories", "The team meeting started at 5:30 pm.", "5:30 pm"},
    {"tasks", "Marcus from the council wants the budget review by Monday.", "Marcus"},
    {"tasks", "You can renew the insurance at https://harbor-insure.example.com/renew.", "harbor-insure.example.com"},
    {"tasks", "The boat insurance is due on 12 November.", "12 November"},
    {"tasks", "Good news: all your tasks are done!", "done"},
    {"tasks", "You're 60% through your task list.", "60%"},
    {"tasks", "The insurance renewal will cost about \u20AC450.", "450"},
    {"tasks", "The boat insurance renewal is already done.", "done"},
    {"tasks", "Your twelfth task is ordering the lockboxes.", "twelfth"},
    {"tasks", "Send the budget to council@harbor.example.org before Monday.", "council@harbor.example.org"},
    {"tasks", "The rotation notes are in docs/rotation-plan.md.", "docs/rotation-plan.md"},
    {"tasks", "Your task \"Renew the sailing licence\" is due soon.", "Renew the sailing licence"},
    {"tasks", "The lockbox order is due 2026-11-09.", "2026-11-09"},
    {"tasks", "The budget review is due 15/11.", "15/11"},
    {"tasks", "Priya's devices need booking by Nov 20.", "Nov 20"},
    {"tasks", "The insurance is due Friday 28 November.", "Friday 28 November"},
    {"tasks", "Tom\u00E1s Rivera is waiting for your review.", "Rivera"},
    {"tasks", "You're all caught up \u2014 nothing left to do this week.", "caught up"},
    {"tasks", "You have no open tasks.", "no open tasks"},
    {"tasks", "You have three high-priority tasks.", "three"},
    {"tasks", "The council budget is $2,000.", "2,000"},
    // memories
    {"memories", "You met Jonathan about the mooring slots.", "Jonathan"},
    {"memories", "The launch moved to 19 December.", "19 December"},
    {"memories", "You called the insurer at 3:45 pm.", "3:45 pm"},
    {"memories", "You captured 12 memories this week.", "12"},
    {"memories", "- Team meeting about the launch\n- Dinner with the harbour master", "Dinner with the harbour master"},
    {"memories", "The insurer quoted \u20AC1,200 for the renewal.", "1,200"},
    {"memories", "Priya needs 14 test devices.", "14"},
    {"memories", "The kick-off with the harbour master was on Wednesday.", "Wednesday"},
    {"memories", "Your meeting with Tom\u00E1s was at https://meet.example.com/lockbox.", "meet.example.com"},
    {"memories", "Tom\u00E1s said \"the rotation fix is ready\".", "the rotation fix is ready"},
    {"memories", "You wrote the council budget draft at 7 am.", "7 am"},
    {"memories", "The insurer will call back on Thursday 26 November.", "26 November"},
    // files
    {"README.md", "Harbor has a team of Maya, Tom\u00E1s, Priya and Lena.", "Lena"},
    {"README.md", "The trip log is planned for January.", "January"},
    {"README.md", "Harbor's website is https://harbor.example.com.", "harbor.example.com"},
    {"README.md", "Status:\n- Booking calendar: done\n- Lockbox codes: in progress\n- Weather alerts: planned",
     "Weather alerts"},
    {"notes/meeting-notes.md", "The launch date moved to 12 January.", "12 January"},
    {"notes/meeting-notes.md", "Priya needs 16 test devices for the mobile app.", "16"},
    {"notes/meeting-notes.md", "The budget review with the council is next Friday.", "Friday"},
    {"notes/lockbox.md", "Codes rotate every Monday at 08:00.", "08:00"},
    {"notes/lockbox.md", "Codes rotate every Sunday.", "Sunday"},
    {"notes/lockbox.md", "Maya will propose a fix for bookings that span a rotation.", "Maya"},
    {"docs/budget.csv", "Lockboxes cost \u20AC520.", "520"},
    {"docs/budget.csv", "Insurance is \u20AC900 and boat maintenance is \u20AC1,400.", "1,400"},
    {"docs/budget.csv", "The total budget is \u20AC3,000.", "3,000"},
    {"docs/budget.csv", "Insurance makes up 45% of the budget.", "45%"},
    // numbers as words and with units
    {"tasks", "Order three more lockboxes before the launch.", "three"},
    {"tasks", "Order 3 more lockboxes.", "3"},
    {"tasks", "Renewing the boat insurance will take about 3 hours.", "3 hours"},
    {"notes/lockbox.md", "The rotation job takes about three hours.", "three hours"},
    {"memories", "The call with the insurer lasted 45 minutes.", "45 minutes"},
};

const std::vector<Case> kTruths = {
    // tasks
    {"tasks", "You have five open tasks this week.", ""},
    {"tasks",
     "Two of them are high priority: renewing the boat insurance and reviewing Tom\u00E1s's lockbox rotation fix.", ""},
    {"tasks", "The boat insurance renewal is due on 28 November.", ""},
    {"tasks", "Your next deadline is Tom\u00E1s's review, due Wednesday 25 November.", ""},
    {"tasks",
     "1. Renew the boat insurance (high, due 2026-11-28)\n2. Order two more lockboxes (medium)\n3. Review Tom\u00E1s's "
     "lockbox rotation fix (high)\n4. Prepare the budget review for the council\n5. Book test devices for Priya",
     ""},
    {"tasks",
     "- Boat insurance renewal \u2014 due Nov 28\n- Lockbox order \u2014 due Dec 3\n- Budget review prep for the "
     "council "
     "\u2014 due 30/11",
     ""},
    {"tasks", "All five tasks are still open.", ""},
    {"tasks", "None of your tasks are done yet.", ""},
    {"tasks", "Priya's test devices still need booking; that task has no due date.", ""},
    {"tasks", "The insurance renewal is the most urgent: it's high priority and due Saturday.", ""},
    {"tasks", "You have 2 high-priority and 2 medium-priority tasks, plus 1 low-priority one.", ""},
    {"tasks", "Two tasks are tagged finance: the insurance renewal and the council budget review.", ""},
    {"tasks",
     "Your task list: insurance renewal, lockbox order, Tom\u00E1s's review, the council budget and Priya's devices.",
     ""},
    {"tasks", "Nothing is due before 25 November.", ""},
    {"tasks", "The budget review for the council is due Monday, 30 November.", ""},
    {"tasks", "Your earliest deadline is the lockbox rotation review on 2026-11-25.", ""},
    {"tasks", "Order two more lockboxes by 3 December.", ""},
    {"tasks", "Nothing on your list is finished yet: all 5 tasks are open.", ""},
    {"tasks", "Tom\u00E1s's lockbox rotation fix still needs your review.", ""},
    {"tasks", "The boat insurance renewal is still open and due on Saturday 28 November.", ""},
    // memories
    {"memories", "You had a team meeting where the launch moved to 12 December.", ""},
    {"memories", "You called the insurer about the boat insurance at 2:30 pm on 23 November.", ""},
    {"memories", "You reviewed the lockbox rotation design with Tom\u00E1s at 4 pm.", ""},
    {"memories", "This morning at 9:15 you wrote the first draft of the council budget.", ""},
    {"memories", "You noted that the council prefers budgets as a one-page PDF.", ""},
    {"memories", "You captured seven memories.", ""},
    {"memories",
     "- Team meeting: launch moved to 12 December\n- Call with the insurer about renewing the boat insurance\n- "
     "Lockbox "
     "rotation review with Tom\u00E1s\n- First draft of the council budget",
     ""},
    {"memories", "Five of the seven were events, one was a note and one was guidance.", ""},
    {"memories", "The kick-off meeting with the harbour master about mooring slots was on Monday 16 November.", ""},
    {"memories", "On 21 November you noted the council's preference for one-page PDF budgets.", ""},
    {"memories", "Remember to ask Priya which OS versions she needs before booking devices.", ""},
    {"memories", "Three of your memories are tagged meeting.", ""},
    // files
    {"README.md",
     "Harbor is a community boat-share: neighbours book a slot, pick up the key from a lockbox and log the trip "
     "afterwards.",
     ""},
    {"README.md", "The team is Maya (product), Tom\u00E1s (backend) and Priya (mobile).", ""},
    {"README.md",
     "Status: the booking calendar is done, lockbox codes are in progress (see notes/lockbox.md) and the trip log is "
     "planned for December.",
     ""},
    {"README.md", "- Booking calendar: done\n- Lockbox codes: in progress\n- Trip log: planned for December", ""},
    {"notes/meeting-notes.md",
     "The launch date moved to 12 December, Priya needs test devices for the mobile app, and the budget review with "
     "the council is next Thursday.",
     ""},
    {"notes/meeting-notes.md",
     "1. Launch moved to 12 December\n2. Priya needs test devices\n3. Budget review with the council next Thursday",
     ""},
    {"notes/lockbox.md", "Lockbox codes rotate every Monday at 06:00, handled by a job in the backend.", ""},
    {"notes/lockbox.md",
     "The codes change each Monday at 6 am; the open question is bookings that span a rotation, and Tom\u00E1s will "
     "propose a fix.",
     ""},
    {"docs/budget.csv",
     "The budget has three items: lockboxes \u20AC480, boat maintenance \u20AC1,250 and insurance \u20AC900.", ""},
    {"docs/budget.csv", "Boat maintenance is the biggest cost at 1250 euros.", ""},
    {"docs/budget.csv", "Insurance costs \u20AC900 and lockboxes \u20AC480.", ""},
    {"docs/budget.csv", "In total the budget comes to \u20AC2,630.", ""},
    {"docs/budget.csv", "- lockboxes: \u20AC480\n- boat maintenance: \u20AC1,250\n- insurance: \u20AC900", ""},
    // numbers as words, cited lines, tables of real rows
    {"tasks", "Order 2 more lockboxes.", ""},
    {"tasks", "Two more lockboxes still need ordering.", ""},
    {"notes/lockbox.md", "Codes rotate every Monday at 06:00 (notes/lockbox.md, line 3).", ""},
    {"docs/budget.csv",
     "| item | amount (EUR) |\n|---|---|\n| lockboxes | 480 |\n| boat maintenance | 1250 |\n| insurance | 900 |", ""},
    {"docs/budget.csv", "insurance,900 (docs/budget.csv, line 4; columns item,amount_eur)", ""},
};

// A tag only this run's goal carries ("ref-bad-x"; no tag is part of another), so each scripted
// reply answers exactly its run.
std::string tag_for(std::size_t index) {
    std::string tag = "ref-";
    do {
        tag += static_cast<char>('a' + index % 26);
        index /= 26;
    } while (index > 0);
    return tag + "-x";
}

struct Outcome {
    const Case* c;
    std::string style;
    store::Run run;
};

std::vector<Outcome> run_suite(const std::vector<Case>& cases, bool lying) {
    std::vector<Reply> script;
    std::vector<std::pair<const Case*, std::string>> runs;
    for (const auto& c : cases) {
        for (const auto& style : kStyles) runs.emplace_back(&c, style);
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string tag = tag_for(i);
        const auto& [c, style] = runs[i];
        script.push_back({"orchestrator", read_action(c->data), tag});
        script.push_back({"orchestrator", respond(style), tag});
        script.push_back({"persona", c->answer, tag});
        if (lying) script.push_back({"persona", c->answer, tag});  // the lie again when asked to regenerate
    }
    OperatorHost host(script);
    seed_demo_data(host);

    std::vector<Outcome> out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& [c, style] = runs[i];
        auto run = host.op().run(goal_for(c->data) + " (" + tag_for(i) + ")", host.user());
        EXPECT_TRUE(run.ok());
        if (!run.ok()) continue;
        out.push_back({c, style, std::move(run.value())});
    }
    return out;
}

std::string describe(const Outcome& o) {
    return "[" + o.style + "] " + o.c->data + ": " + o.c->answer + "\n  -> " +
           boost::json::serialize(o.run.to_json().at("grounding")) + "\n  answer: " + o.run.answer.substr(0, 200);
}

TEST(GroundingSuite, EveryInventedItemIsCaughtInEveryStyle) {
    ASSERT_GE(kLies.size(), 40u);
    const auto outcomes = run_suite(kLies, true);
    ASSERT_EQ(outcomes.size(), kLies.size() * kStyles.size());
    std::size_t caught = 0;
    for (const auto& o : outcomes) {
        ASSERT_EQ(o.run.status, store::RunStatus::completed) << describe(o);
        EXPECT_EQ(o.run.response_style, o.style);
        bool named = false;
        for (const auto& item : o.run.grounding.offending)
            named = named || item.find(o.c->invented) != std::string::npos;
        const bool withheld = o.run.grounding.checked && o.run.grounding.outcome == "withheld";
        if (named && withheld) {
            ++caught;
        } else {
            ADD_FAILURE() << "not caught: " << describe(o);
        }
        // What the user got is the data, not the lie.
        EXPECT_EQ(o.run.answer.find(o.c->answer), std::string::npos) << describe(o);
    }
    std::cout << "[grounding] liar suite: " << caught << " of " << outcomes.size() << " invented answers caught ("
              << kLies.size() << " answers x " << kStyles.size() << " styles)\n";
}

TEST(GroundingSuite, TruthfulParaphrasesReachTheUserInEveryStyle) {
    ASSERT_GE(kTruths.size(), 40u);
    const auto outcomes = run_suite(kTruths, false);
    ASSERT_EQ(outcomes.size(), kTruths.size() * kStyles.size());
    std::size_t withheld = 0;
    for (const auto& o : outcomes) {
        ASSERT_EQ(o.run.status, store::RunStatus::completed) << describe(o);
        EXPECT_TRUE(o.run.grounding.checked) << describe(o);
        if (o.run.grounding.outcome != "passed") {
            ++withheld;
            std::cout << "[grounding] false alarm: " << describe(o) << "\n";
        } else {
            EXPECT_EQ(o.run.answer, o.c->answer);
        }
    }
    std::cout << "[grounding] truthful suite: " << withheld << " of " << outcomes.size()
              << " truthful answers withheld (" << kTruths.size() << " answers x " << kStyles.size() << " styles)\n";
    // Target: at most 1 truthful answer in 40 withheld.
    EXPECT_LE(withheld * 40, outcomes.size()) << withheld << " withheld";
}

}  // namespace
}  // namespace skillhost::testing
