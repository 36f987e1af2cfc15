#include "memory_store.hpp"

#include "../common/sqlite_database.hpp"
#include "memory_file_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace skillhost_builtin::memory {

using skillhost::Json;
using skillhost::Record;
using skillhost::SkillError;

namespace {

constexpr const char* kMemories = "memories";

// Tags are joined by the unit separator (0x1f) for the search index: normalize_tags strips it from
// tags, and the unicode61 tokenizer treats it as a separator.
std::string join_tags(const std::vector<std::string>& tags) {
    std::string out;
    for (const auto& t : tags) out += (out.empty() ? "" : "\x1f") + t;
    return out;
}

bool newer_first(const Memory& a, const Memory& b) {
    if (a.occurred_at != b.occurred_at) return a.occurred_at > b.occurred_at;
    return a.id > b.id;
}

// An FTS5 index of some memories, in a private in-memory database that lives for one search.
class SearchIndex {
public:
    SearchIndex() {
        const int rc = sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
        if (rc != SQLITE_OK) {
            sqlite3_close(db_);
            db_ = nullptr;
            throw SkillError("MEMORY_SEARCH_FAILED",
                             std::string("could not open the search index: ") + sqlite3_errstr(rc));
        }
        exec("CREATE VIRTUAL TABLE found USING fts5(text, tags, tokenize='porter unicode61')");
    }
    ~SearchIndex() { sqlite3_close(db_); }
    SearchIndex(const SearchIndex&) = delete;
    SearchIndex& operator=(const SearchIndex&) = delete;

    // Indexes `memories` (rowid = their position, so ties in rank keep their order).
    void add(const std::vector<Memory>& memories) {
        exec("BEGIN");
        Statement insert = prepare("INSERT INTO found (rowid, text, tags) VALUES (?1, ?2, ?3)");
        for (std::size_t i = 0; i < memories.size(); ++i) {
            insert.bind(1, static_cast<std::int64_t>(i)).bind(2, memories[i].text).bind(3, join_tags(memories[i].tags));
            insert.run();
            insert.reset();
        }
        exec("COMMIT");
    }

    // Positions of the best `limit` matches of `query`, with their bm25 rank (lower is better; text
    // counts twice as much as tags) and a snippet.
    struct Match {
        std::size_t position;
        double rank;
        std::string snippet;
    };
    std::vector<Match> matches(const std::string& query, std::int64_t limit) {
        Statement stmt = prepare(
            "SELECT rowid, bm25(found, 1.0, 0.5), snippet(found, 0, '[', ']', '...', 16) FROM found"
            " WHERE found MATCH ?1 ORDER BY bm25(found, 1.0, 0.5), rowid LIMIT ?2");
        stmt.bind(1, query).bind(2, limit);
        std::vector<Match> out;
        while (stmt.step()) out.push_back({static_cast<std::size_t>(stmt.int64(0)), stmt.real(1), stmt.text(2)});
        return out;
    }

private:
    Statement prepare(std::string_view sql) { return Statement(db_, sql, "memory search index"); }
    void exec(const char* sql) {
        const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK)
            throw_storage_error(db_, rc, std::string("executing '") + sql + "'", "memory search index");
    }
    sqlite3* db_ = nullptr;
};

}  // namespace

Json Memory::to_json(const Clock& clock) const {
    Json tag_list = Json::array();
    for (const auto& t : tags) tag_list.push_back(t);
    return Json::object({{"id", id},
                         {"text", text},
                         {"kind", kind},
                         {"tags", tag_list},
                         {"timestamp", format_iso8601_local(occurred_at, clock.zone)}});
}

Json memory_value(const Memory& memory) {
    Json tags = Json::array();
    for (const auto& t : memory.tags) tags.push_back(t);
    return Json::object({{"text", memory.text},
                         {"kind", memory.kind},
                         {"tags", tags},
                         {"occurred_at", memory.occurred_at},
                         {"created_at", memory.created_at}});
}

Memory memory_from_record(const Record& record) {
    try {
        Memory m;
        m.id = std::stoll(record.key);
        const Json& v = record.value;
        m.text = v["text"].as_string();
        m.kind = v["kind"].as_string();
        if (const Json* tags = v.find("tags"); tags && tags->is_array())
            for (const Json& tag : tags->as_array()) m.tags.push_back(tag.as_string());
        m.occurred_at = v["occurred_at"].as_int();
        m.created_at = v.int_or("created_at", 0);
        return m;
    } catch (const std::exception& e) {
        throw SkillError("MEMORY_RECORD_INVALID",
                         "the stored record of memory '" + record.key + "' is not a memory (" + e.what() +
                             "); it was written by something other than the memory plugin",
                         Json::object({{"key", record.key}}));
    }
}

std::vector<std::string> normalize_tags(const Json& tags) {
    std::vector<std::string> out;
    if (tags.is_null()) return out;
    for (const auto& t : tags.as_array()) {
        std::string tag;
        for (char c : t.as_string())
            if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f)
                tag += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        while (!tag.empty() && tag.back() == ' ') tag.pop_back();
        while (!tag.empty() && tag.front() == ' ') tag.erase(0, 1);
        if (!tag.empty() && std::find(out.begin(), out.end(), tag) == out.end()) out.push_back(std::move(tag));
    }
    return out;
}

std::string fts_query_for(std::string_view text) {
    std::string query, word;
    auto flush = [&] {
        if (word.empty()) return;
        query += (query.empty() ? "\"" : " OR \"") + word + "\"";
        word.clear();
    };
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || u >= 0x80)
            word += c;
        else
            flush();
    }
    flush();
    return query;
}

MemoryStore::MemoryStore(const skillhost::Call& call)
    : storage_(require_storage(call, "memory", "memories")), retry_keys_(storage_) {
    import_memory_file_once(call, storage_);
}

Memory MemoryStore::capture(Memory memory) {
    memory.created_at = unix_now();
    memory.id = create_record(storage_, kMemories, memory_value(memory));
    return memory;
}

Memory MemoryStore::capture_once(Memory memory, const std::string& retry_key, bool& repeated) {
    memory.created_at = unix_now();
    const RetryKeys::Created created =
        retry_keys_.create_once(kMemories, retry_key, memory_value(memory), "MEMORY_BUSY");
    repeated = created.repeated;
    memory.id = created.id;
    if (created.repeated) {
        if (auto existing = find(memory.id)) return *existing;
    }
    return memory;
}

std::vector<Memory> MemoryStore::matching(const MemoryFilter& f) {
    std::vector<Memory> out;
    for (const auto& record : list_all(storage_, kMemories, "memories")) {
        Memory m = memory_from_record(record);
        if (f.window.since && m.occurred_at < *f.window.since) continue;
        if (f.window.until && m.occurred_at >= *f.window.until) continue;
        if (f.kind && m.kind != *f.kind) continue;
        if (f.tag && std::find(m.tags.begin(), m.tags.end(), *f.tag) == m.tags.end()) continue;
        out.push_back(std::move(m));
    }
    std::sort(out.begin(), out.end(), newer_first);
    return out;
}

std::vector<Memory> MemoryStore::search(const std::string& fts_query, const MemoryFilter& filter) {
    std::vector<Memory> candidates = matching(filter);
    if (candidates.empty()) return {};
    SearchIndex index;
    index.add(candidates);
    std::vector<Memory> out;
    for (auto& match : index.matches(fts_query, filter.limit)) {
        Memory m = candidates.at(match.position);
        // bm25() is lower-is-better and negative; flip it so callers read "higher is better".
        m.score = std::round(-match.rank * 1000) / 1000;
        m.snippet = std::move(match.snippet);
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<Memory> MemoryStore::recent(const MemoryFilter& filter) {
    std::vector<Memory> out = matching(filter);
    if (filter.limit >= 0 && static_cast<std::uint64_t>(filter.limit) < out.size())
        out.resize(static_cast<std::size_t>(filter.limit));
    return out;
}

std::optional<Memory> MemoryStore::find(std::int64_t id) {
    auto record = storage_.get(kMemories, record_key(id));
    if (!record) return std::nullopt;
    return memory_from_record(*record);
}

}  // namespace skillhost_builtin::memory
