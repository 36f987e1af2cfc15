// The `memory` plugin: a user's episodic memory — capture events, notes and guidance, then find
// them again by words and by time ("what did I do yesterday?").
#include "memory_resources.hpp"
#include "memory_store.hpp"

#include <skillhost/skill.hpp>

namespace {

using skillhost::Call;
using skillhost::Json;
using skillhost::SkillError;
using namespace skillhost_builtin::memory;

// A memory is a sentence or a few; the host's records hold 256 KiB with the tags and escapes.
constexpr std::size_t kMaxTextBytes = 64 * 1024;

MemoryFilter filter_from_args(const Json& args, const Clock& clock, std::int64_t default_limit) {
    MemoryFilter f;
    f.window = window_from_args(args, clock);
    if (const Json* kind = args.find("kind"); kind && !kind->is_null()) f.kind = kind->as_string();
    if (const Json* tag = args.find("tag"); tag && !tag->is_null()) {
        auto tags = normalize_tags(Json::array({*tag}));
        if (!tags.empty()) f.tag = tags.front();
    }
    f.limit = args.int_or("limit", default_limit);
    return f;
}

Json memory_capture(const Call& call, const Json& args) {
    Clock clock;
    clock.now = skillhost_builtin::unix_now();
    Memory m;
    m.text = args["text"].as_string();
    if (m.text.size() > kMaxTextBytes)
        throw SkillError("MEMORY_TOO_LONG",
                         "the text is " + std::to_string(m.text.size()) + " bytes; a memory holds at most " +
                             std::to_string(kMaxTextBytes) +
                             " bytes: remember the gist, or keep the document as a file",
                         Json::object({{"field", "text"},
                                       {"bytes", static_cast<std::int64_t>(m.text.size())},
                                       {"limit", static_cast<std::int64_t>(kMaxTextBytes)}}));
    m.kind = args.string_or("kind", "note");
    m.tags = normalize_tags(args["tags"]);
    m.occurred_at = clock.now;
    if (const Json* ts = args.find("timestamp"); ts && !ts->is_null()) {
        auto parsed = skillhost_builtin::parse_iso8601(ts->as_string(), clock.zone);
        if (!parsed)
            throw SkillError("INVALID_TIMESTAMP",
                             "timestamp '" + ts->as_string() +
                                 "' is not an ISO-8601 timestamp; write YYYY-MM-DD or e.g. 2026-11-21T15:30:00+01:00, "
                                 "or leave it out to use the current time",
                             Json::object({{"field", "timestamp"}, {"value", ts->as_string()}}));
        m.occurred_at = parsed->unix_seconds;
        if (parsed->offset) clock.zone = skillhost_builtin::LocalZone::fixed(*parsed->offset);
    }
    MemoryStore store(call);
    // A call that may be retried (a run's step, an approval, a client's Idempotency-Key) captures
    // once; the retry is answered with that memory.
    const std::string key = call.idempotency_key();
    if (!key.empty() && key != call.call_id()) {
        bool repeated = false;
        Memory stored = store.capture_once(std::move(m), key, repeated);
        // captured: false when the memory is the one an earlier attempt stored.
        return Json::object({{"memory", stored.to_json(clock)}, {"captured", !repeated}});
    }
    Memory stored = store.capture(std::move(m));
    return Json::object({{"memory", stored.to_json(clock)}, {"captured", true}});
}

Json memory_search(const Call& call, const Json& args) {
    const std::string query = args["query"].as_string();
    const std::string fts = fts_query_for(query);
    if (fts.empty())
        throw SkillError("INVALID_QUERY",
                         "the query '" + query +
                             "' contains no words to search for; pass words that appear in the "
                             "memory, or use memory_recent to list memories by time",
                         Json::object({{"query", query}}));
    const Clock clock = clock_from_args(args);
    MemoryFilter filter = filter_from_args(args, clock, 10);
    MemoryStore store(call);
    Json results = Json::array();
    for (const auto& m : store.search(fts, filter)) {
        Json item = m.to_json(clock);
        item["score"] = m.score;
        item["snippet"] = m.snippet;
        results.push_back(std::move(item));
    }
    const auto count = static_cast<std::int64_t>(results.size());
    return Json::object({{"query", query},
                         {"window", filter.window.to_json(clock)},
                         {"results", std::move(results)},
                         {"count", count}});
}

Json memory_recent(const Call& call, const Json& args) {
    const Clock clock = clock_from_args(args);
    MemoryFilter filter = filter_from_args(args, clock, 20);
    MemoryStore store(call);
    Json memories = Json::array();
    for (const auto& m : store.recent(filter)) memories.push_back(m.to_json(clock));
    const auto count = static_cast<std::int64_t>(memories.size());
    return Json::object(
        {{"window", filter.window.to_json(clock)}, {"memories", std::move(memories)}, {"count", count}});
}

}  // namespace

SKILLHOST_PLUGIN("memory", "1.0.0", SKILLHOST_SKILL("memory_capture", memory_capture),
                 SKILLHOST_SKILL("memory_search", memory_search), SKILLHOST_SKILL("memory_recent", memory_recent))

namespace {

// Memories as resources, governed by memory_recent: who may list their memories may read them
// this way.
const void* memory_extensions(const char* id) {
    static const skillhost_resources_v1* resources =
        skillhost::resources_extension<list_memory_resources, memory_resource_templates, read_memory_resource>(
            "memory_recent", "memory://");
    return std::string_view(id) == SKILLHOST_EXT_RESOURCES ? resources : nullptr;
}

}  // namespace

SKILLHOST_PLUGIN_EXTENSIONS(memory_extensions)
