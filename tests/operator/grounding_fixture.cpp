#include "operator/grounding_fixture.hpp"

#include "support/temp_dir.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>

namespace skillhost::testing {

namespace fs = std::filesystem;

void seed_demo_data(OperatorHost& host) {
    struct File {
        const char* path;
        const char* text;
    };
    const File files[] = {
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
    // Thursday 19 November 2026, 07:40 UTC: a fixed modification time, so no weekday or time of
    // the test run leaks into the observations.
    const auto modified = std::chrono::file_clock::from_sys(std::chrono::sys_seconds{std::chrono::seconds{1795074000}});
    for (const auto& f : files) {
        write_file(host.workspace() / f.path, f.text);
        fs::last_write_time(host.workspace() / f.path, modified);
    }
    host.call("task_create", R"({"title":"Renew the boat insurance","priority":"high","tags":["admin","finance"],
                                 "due":"2026-11-28","notes":"Policy ends at the end of the month."})");
    host.call("task_create", R"({"title":"Order two more lockboxes","priority":"medium","tags":["hardware"],
                                 "due":"2026-12-03"})");
    host.call("task_create", R"({"title":"Review Tomás's lockbox rotation fix","priority":"high",
                                 "tags":["backend","review"],"due":"2026-11-25","notes":"See notes/lockbox.md."})");
    host.call("task_create", R"({"title":"Prepare the budget review for the council","priority":"medium",
                                 "tags":["finance"],"due":"2026-11-30","notes":"Numbers in docs/budget.csv."})");
    host.call("task_create", R"({"title":"Book test devices for Priya","priority":"low","tags":["mobile"]})");
    const char* memories[] = {
        R"({"text":"Team meeting: launch moved to 12 December; Priya needs test devices.","kind":"event",
            "tags":["meeting","work"],"timestamp":"2026-11-23T10:00:00+00:00"})",
        R"({"text":"Called the insurer about renewing the boat insurance; they will send a quote.","kind":"event",
            "tags":["admin"],"timestamp":"2026-11-23T14:30:00+00:00"})",
        R"({"text":"Reviewed the lockbox rotation design with Tomás.","kind":"event","tags":["backend","meeting"],
            "timestamp":"2026-11-23T16:00:00+00:00"})",
        R"({"text":"Wrote the first draft of the council budget.","kind":"event","tags":["finance"],
            "timestamp":"2026-11-24T09:15:00+00:00"})",
        R"({"text":"Kick-off meeting with the harbour master about mooring slots.","kind":"event","tags":["meeting"],
            "timestamp":"2026-11-16T11:00:00+00:00"})",
        R"({"text":"The council prefers budgets as a one-page PDF.","kind":"note","tags":["finance"],
            "timestamp":"2026-11-21T12:00:00+00:00"})",
        R"({"text":"When booking devices, ask Priya which OS versions she needs first.","kind":"guidance",
            "tags":["mobile"],"timestamp":"2026-11-22T15:00:00+00:00"})",
    };
    for (const char* m : memories) host.call("memory_capture", m);
}

std::string read_action(const std::string& data) {
    if (data == "tasks") return act("task_list", "{}");
    if (data == "memories") return act("memory_recent", R"({"now":"2026-11-24T18:00:00+00:00"})");
    return act("fs_read", boost::json::serialize(boost::json::object{{"path", data}}));
}

std::string goal_for(const std::string& data) {
    if (data == "tasks") return "How is my week looking?";
    if (data == "memories") return "What happened recently?";
    if (data == "README.md") return "Summarise the README for me";
    if (data == "notes/meeting-notes.md") return "What did we decide in the weekly meeting?";
    if (data == "notes/lockbox.md") return "Explain the lockbox notes";
    return "What is in the budget?";
}

}  // namespace skillhost::testing
