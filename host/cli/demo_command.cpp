// `skillhost demo seed`: fills a home with a small, realistic set of tasks, memories and workspace
// files, so the first commands a new user runs show real answers. Tasks and memories go through the
// executor like any other call (so they land in the plugins' own stores); files are written directly.
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "cli/error_codes.hpp"

#include <boost/json/serialize.hpp>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>

namespace skillhost::cli {
namespace {

namespace fs = std::filesystem;

// Local ISO-8601 timestamp `days_ago` days back at hour:minute, with the local UTC offset.
std::string local_time(int days_ago, int hour, int minute) {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    tm.tm_mday -= days_ago;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = 0;
    tm.tm_isdst = -1;
    std::time_t t = std::mktime(&tm);
    localtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
    std::string s(buf);
    s.insert(s.size() - 2, ":");  // +0100 -> +01:00
    return s;
}

std::string local_date(int days_ahead) {
    return local_time(-days_ahead, 12, 0).substr(0, 10);
}

struct DemoFile {
    const char* path;
    const char* text;
};

const DemoFile kFiles[] = {
    {"README.md",
     "# Harbor — community boat-share\n\n"
     "Harbor lets neighbours share small boats: book a slot, pick up the key from a lockbox,\n"
     "and log the trip when you are back.\n\n"
     "## Status\n\n"
     "- Booking calendar: done\n- Lockbox codes: in progress (see notes/lockbox.md)\n"
     "- Trip log: planned for December\n\n"
     "## Team\n\nMaya (product), Tomás (backend), Priya (mobile).\n"},
    {"notes/lockbox.md",
     "# Lockbox codes\n\nCodes rotate every Monday at 06:00. The rotation job runs in the backend.\n"
     "Open question: what happens to bookings that span a rotation? Tomás to propose a fix.\n"},
    {"notes/meeting-notes.md",
     "# Weekly meeting\n\n- Launch date moved to 12 December.\n- Priya needs test devices for the mobile app.\n"
     "- Budget review with the council next Thursday.\n"},
    {"docs/budget.csv", "item,amount_eur\nlockboxes,480\nboat maintenance,1250\ninsurance,900\n"},
};

struct DemoTask {
    const char* title;
    const char* priority;
    std::vector<std::string> tags;
    int due_in_days;  // < 0: no due date
    const char* notes;
};

const DemoTask kTasks[] = {
    {"Renew the boat insurance", "high", {"admin", "finance"}, 5, "Policy ends at the end of the month."},
    {"Order two more lockboxes", "medium", {"hardware"}, 10, ""},
    {"Review Tomás's lockbox rotation fix", "high", {"backend", "review"}, 2, "See notes/lockbox.md."},
    {"Prepare the budget review for the council", "medium", {"finance"}, 7, "Numbers in docs/budget.csv."},
    {"Book test devices for Priya", "low", {"mobile"}, -1, ""},
};

struct DemoMemory {
    const char* text;
    const char* kind;
    std::vector<std::string> tags;
    int days_ago, hour, minute;
};

const DemoMemory kMemories[] = {
    {"Team meeting: launch moved to 12 December; Priya needs test devices.", "event", {"meeting", "work"}, 1, 10, 0},
    {"Called the insurer about renewing the boat insurance; they will send a quote.", "event", {"admin"}, 1, 14, 30},
    {"Reviewed the lockbox rotation design with Tomás.", "event", {"backend", "meeting"}, 1, 16, 0},
    {"Wrote the first draft of the council budget.", "event", {"finance"}, 0, 9, 15},
    {"Kick-off meeting with the harbour master about mooring slots.", "event", {"meeting"}, 8, 11, 0},
    {"The council prefers budgets as a one-page PDF.", "note", {"finance"}, 3, 12, 0},
    {"When booking devices, ask Priya which OS versions she needs first.", "guidance", {"mobile"}, 2, 15, 0},
};

int run_seed(CliContext& ctx, const std::string& user, bool force, bool json) {
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), json);
    HostRuntime& host = *rt.value();
    auto who = host.user(user);
    if (!who) return fail_setup(who.error(), json);
    plugin::Call caller = host.caller(who.value());
    fs::path marker = host.config().users_dir() / caller.user_id / ".demo-seeded";
    if (fs::exists(marker) && !force) {
        Error e{errors::kDemoAlreadySeeded,
                "the demo data is already in " + host.config().home.string(),
                {},
                {"use --force to add it again, or a fresh --home"}};
        return fail_setup(e, json);
    }

    int files = 0, tasks = 0, memories = 0;
    for (const auto& f : kFiles) {
        fs::path p = caller.workspace_root / f.path;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::trunc) << f.text;
        ++files;
    }
    auto call = [&](const char* skill, boost::json::object args) -> bool {
        exec::CallRequest request;
        request.skill_id = skill;
        request.args = std::move(args);
        request.user = who.value();
        request.requested_by = auth::Requester::demo();
        auto r = host.calls().call(*host.snapshot(), request).result;
        if (!r.ok) {
            print_error(r.error);
            return false;
        }
        return true;
    };
    for (const auto& t : kTasks) {
        boost::json::object args{{"title", t.title}, {"priority", t.priority}, {"notes", t.notes}};
        boost::json::array tags;
        for (const auto& tag : t.tags) tags.emplace_back(tag);
        args["tags"] = std::move(tags);
        if (t.due_in_days >= 0) args["due"] = local_date(t.due_in_days);
        if (!call("task_create", std::move(args))) return kExitFailed;
        ++tasks;
    }
    for (const auto& m : kMemories) {
        boost::json::object args{
            {"text", m.text}, {"kind", m.kind}, {"timestamp", local_time(m.days_ago, m.hour, m.minute)}};
        boost::json::array tags;
        for (const auto& tag : m.tags) tags.emplace_back(tag);
        args["tags"] = std::move(tags);
        if (!call("memory_capture", std::move(args))) return kExitFailed;
        ++memories;
    }
    fs::create_directories(marker.parent_path());
    std::ofstream(marker) << "seeded\n";

    if (json) {
        print_json(boost::json::object{{"user", caller.user_id},
                                       {"home", host.config().home.string()},
                                       {"workspace", caller.workspace_root.string()},
                                       {"files", files},
                                       {"tasks", tasks},
                                       {"memories", memories}});
    } else {
        std::cout << "Seeded demo data for user '" << caller.user_id << "' in " << host.config().home.string() << ":\n"
                  << "  " << tasks << " tasks, " << memories << " memories, " << files << " workspace files in "
                  << caller.workspace_root.string() << "\n"
                  << "Try: skillhost call task_list    skillhost call fs_read --args '{\"path\":\"README.md\"}'\n";
    }
    return kExitOk;
}

}  // namespace

void register_demo_commands(CLI::App& app, CliContext& ctx) {
    auto* demo = app.add_subcommand("demo", "Demo data for trying skillhost");
    demo->require_subcommand(1);
    auto* seed = demo->add_subcommand("seed", "Fill the home with sample tasks, memories and workspace files");
    auto user = std::make_shared<std::string>();
    auto force = std::make_shared<bool>(false);
    auto json = std::make_shared<bool>(false);
    seed->add_option("--user", *user, "Seed for this user (default: the configured default user)");
    seed->add_flag("--force", *force, "Seed again even if this home already has the demo data");
    seed->add_flag("--json", *json, "Machine-readable summary");
    ctx.add_global_options(*seed);
    seed->callback([&ctx, user, force, json] { ctx.exit_code = run_seed(ctx, *user, *force, *json); });
}

}  // namespace skillhost::cli
