// Episodic memory for one user: SQLite (WAL) with an FTS5 index over text and tags, in the
// plugin's data directory for that user.
#pragma once

#include "../common/sqlite_database.hpp"
#include "time_window.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skillhost_builtin::memory {

struct Memory {
    std::int64_t id = 0;
    std::string text;
    std::string kind;  // event | note | guidance
    std::vector<std::string> tags;
    std::int64_t occurred_at = 0;  // unix seconds
    double score = 0;              // search only: higher is more relevant
    std::string snippet;           // search only: text around the matches, matches in [brackets]

    skillhost::Json to_json(const Clock& clock) const;
};

struct MemoryFilter {
    TimeWindow window;
    std::optional<std::string> kind;
    std::optional<std::string> tag;
    std::int64_t limit = 20;
};

class MemoryStore {
public:
    explicit MemoryStore(const skillhost::Call& call);

    Memory capture(Memory memory);
    // capture(), once per `retry_key` (the call's idempotency key when it can be retried): a key
    // already acted on returns the memory it captured then, with `repeated` set.
    Memory capture_once(Memory memory, const std::string& retry_key, bool& repeated);
    // Full-text search (`fts_query` from fts_query_for()), best match first.
    std::vector<Memory> search(const std::string& fts_query, const MemoryFilter& filter);
    // Newest first.
    std::vector<Memory> recent(const MemoryFilter& filter);
    // The memory with this id, if there is one.
    std::optional<Memory> find(std::int64_t id);

private:
    void ensure_schema();
    // Inserts `memory` (and its full-text entry) inside the caller's write transaction; sets its id.
    void insert_in_transaction(Memory& memory);
    Database db_;
};

// The FTS5 query for free text: each word quoted (so user text can never be FTS syntax) and
// OR-ed, letting bm25 rank memories that contain more of the words higher. Empty when the text
// has no words.
std::string fts_query_for(std::string_view text);

std::vector<std::string> normalize_tags(const skillhost::Json& tags);

}  // namespace skillhost_builtin::memory
