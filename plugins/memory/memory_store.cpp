#include "memory_store.hpp"

#include "../common/created_by_key.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace skillhost_builtin::memory {

using skillhost::Json;

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL CHECK (kind IN ('event','note','guidance')),
  occurred_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_by_time ON memories(occurred_at);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  text, tags, content='memories', content_rowid='id', tokenize='porter unicode61');
PRAGMA user_version = 1;
)sql";

// Tags are stored joined by the unit separator (0x1f), which normalize_tags strips from tags and
// which the unicode61 tokenizer treats as a separator.
std::string join_tags(const std::vector<std::string>& tags) {
    std::string out;
    for (const auto& t : tags) out += (out.empty() ? "" : "\x1f") + t;
    return out;
}

std::vector<std::string> split_tags(const std::string& joined) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (!joined.empty() && start <= joined.size()) {
        std::size_t end = joined.find('\x1f', start);
        if (end == std::string::npos) end = joined.size();
        out.push_back(joined.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

constexpr const char* kFilterSql =
    " AND (?2 IS NULL OR m.occurred_at >= ?2) AND (?3 IS NULL OR m.occurred_at < ?3)"
    " AND (?4 IS NULL OR m.kind = ?4)"
    " AND (?5 IS NULL OR instr(char(31) || m.tags || char(31), char(31) || ?5 || char(31)) > 0)";

void bind_filter(Statement& s, const MemoryFilter& f) {
    if (f.window.since)
        s.bind(2, *f.window.since);
    else
        s.bind_null(2);
    if (f.window.until)
        s.bind(3, *f.window.until);
    else
        s.bind_null(3);
    if (f.kind)
        s.bind(4, *f.kind);
    else
        s.bind_null(4);
    if (f.tag)
        s.bind(5, *f.tag);
    else
        s.bind_null(5);
    s.bind(6, f.limit);
}

constexpr const char* kSelectMemory = "SELECT m.id, m.text, m.kind, m.tags, m.occurred_at FROM memories m";

// A row of kSelectMemory.
Memory memory_of(const Statement& stmt) {
    Memory m;
    m.id = stmt.int64(0);
    m.text = stmt.text(1);
    m.kind = stmt.text(2);
    m.tags = split_tags(stmt.text(3));
    m.occurred_at = stmt.int64(4);
    return m;
}

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

MemoryStore::MemoryStore(const skillhost::Call& call) : db_(database_path(call, "memory.db")) {
    ensure_schema();
}

void MemoryStore::ensure_schema() {
    {
        // The read must be finished before BEGIN IMMEDIATE: a connection that still holds a read
        // snapshot gets SQLITE_BUSY at once (the busy timeout is skipped to avoid a deadlock).
        Statement version = db_.prepare("PRAGMA user_version");
        if (version.step() && version.int64(0) >= 1) return;
    }
    WriteTransaction tx(db_);  // every statement in the schema is IF NOT EXISTS: racing creators are fine
    db_.exec(kSchema);
    tx.commit();
}

Memory MemoryStore::capture_once(Memory memory, const std::string& retry_key, bool& repeated) {
    repeated = false;
    {
        WriteTransaction tx(db_);
        if (auto earlier = created_for_key(db_, retry_key)) {
            tx.commit();
            repeated = true;
            memory.id = *earlier;
        } else {
            insert_in_transaction(memory);
            remember_created(db_, retry_key, memory.id);
            tx.commit();
            return memory;
        }
    }
    if (auto existing = find(memory.id)) return *existing;
    return memory;
}

Memory MemoryStore::capture(Memory memory) {
    WriteTransaction tx(db_);
    insert_in_transaction(memory);
    tx.commit();
    return memory;
}

void MemoryStore::insert_in_transaction(Memory& memory) {
    const std::string tags = join_tags(memory.tags);
    Statement insert =
        db_.prepare("INSERT INTO memories (text, tags, kind, occurred_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5)");
    insert.bind(1, memory.text).bind(2, tags).bind(3, memory.kind).bind(4, memory.occurred_at).bind(5, unix_now());
    insert.run();
    memory.id = db_.last_insert_rowid();
    Statement index = db_.prepare("INSERT INTO memories_fts (rowid, text, tags) VALUES (?1, ?2, ?3)");
    index.bind(1, memory.id).bind(2, memory.text).bind(3, tags).run();
}

std::vector<Memory> MemoryStore::search(const std::string& fts_query, const MemoryFilter& filter) {
    Statement stmt =
        db_.prepare(std::string("SELECT m.id, m.text, m.kind, m.tags, m.occurred_at, bm25(memories_fts, 1.0, 0.5),"
                                " snippet(memories_fts, 0, '[', ']', '...', 16)"
                                " FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid"
                                " WHERE memories_fts MATCH ?1") +
                    kFilterSql + " ORDER BY bm25(memories_fts, 1.0, 0.5), m.occurred_at DESC LIMIT ?6");
    stmt.bind(1, fts_query);
    bind_filter(stmt, filter);
    std::vector<Memory> out;
    while (stmt.step()) {
        Memory m = memory_of(stmt);  // the first five columns are kSelectMemory's
        // bm25() is lower-is-better and negative; flip it so callers read "higher is better".
        m.score = std::round(-stmt.real(5) * 1000) / 1000;
        m.snippet = stmt.text(6);
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<Memory> MemoryStore::recent(const MemoryFilter& filter) {
    Statement stmt = db_.prepare(std::string(kSelectMemory) + " WHERE ?1 IS NULL" + kFilterSql +
                                 " ORDER BY m.occurred_at DESC, m.id DESC LIMIT ?6");
    stmt.bind_null(1);
    bind_filter(stmt, filter);
    std::vector<Memory> out;
    while (stmt.step()) out.push_back(memory_of(stmt));
    return out;
}

std::optional<Memory> MemoryStore::find(std::int64_t id) {
    Statement stmt = db_.prepare(std::string(kSelectMemory) + " WHERE m.id = ?1");
    stmt.bind(1, id);
    if (!stmt.step()) return std::nullopt;
    return memory_of(stmt);
}

}  // namespace skillhost_builtin::memory
