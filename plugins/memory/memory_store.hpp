// Episodic memory for one user, kept in the host's storage ("skillhost.storage/1"), so every
// instance of a scaled-out host sees the same memories with the same ids:
//  - collection `memories`: one record per memory, keyed by its id (record_key()), with its text,
//    kind, tags, when it happened and when it was captured (unix seconds); ids from the
//    collection's sequence. Memories are never changed once captured.
//  - collection `retry_keys`: what a capture that may be retried stored (common/stored_records.hpp).
//  - collection `memories.meta`: the marker of the import of an older memory.db (memory_file_import.hpp).
// Search ranks with SQLite FTS5 (porter stemming, bm25) over an index built in memory for the
// call from the memories inside the asked window, kind and tag.
#pragma once

#include "../common/stored_records.hpp"
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
    std::int64_t created_at = 0;   // unix seconds: when it was captured
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

// The value stored for `memory` (every field but the id, which is the key).
skillhost::Json memory_value(const Memory& memory);
// The memory a record of collection `memories` holds; throws MEMORY_RECORD_INVALID.
Memory memory_from_record(const skillhost::Record& record);

class MemoryStore {
public:
    // The store of `call`'s user. Imports an older memory.db left in the call's data directory first.
    // Throws STORAGE_UNAVAILABLE on a host without "skillhost.storage/1".
    explicit MemoryStore(const skillhost::Call& call);

    Memory capture(Memory memory);
    // capture(), once per `retry_key` (the call's idempotency key when it can be retried): a key
    // already acted on returns the memory it captured then, with `repeated` set. The key is recorded
    // in the same batch as the memory.
    Memory capture_once(Memory memory, const std::string& retry_key, bool& repeated);
    // Full-text search (`fts_query` from fts_query_for()), best match first.
    std::vector<Memory> search(const std::string& fts_query, const MemoryFilter& filter);
    // Newest first.
    std::vector<Memory> recent(const MemoryFilter& filter);
    // The memory with this id, if there is one.
    std::optional<Memory> find(std::int64_t id);

private:
    // The memories `filter` lets through (window, kind, tag; not its limit), newest first.
    std::vector<Memory> matching(const MemoryFilter& filter);

    skillhost::Storage storage_;
    RetryKeys retry_keys_;
};

// The FTS5 query for free text: each word quoted (so user text can never be FTS syntax) and
// OR-ed, letting bm25 rank memories that contain more of the words higher. Empty when the text
// has no words.
std::string fts_query_for(std::string_view text);

std::vector<std::string> normalize_tags(const skillhost::Json& tags);

}  // namespace skillhost_builtin::memory
