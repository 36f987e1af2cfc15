// What users taught the operator: guidance given to a stuck run (with the situation it was given
// in and how the resumed run ended) and the playbooks distilled from guidance that worked. Later
// runs find playbooks for similar goals by full-text match (SQLite FTS5, BM25 ranking).
#pragma once

#include "base/error.hpp"
#include "db/sqlite_connection.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::store {

struct GuidanceRecord {
    std::string id;  // "gdn-..."
    std::string run_id;
    std::string user_id;
    std::string goal;
    boost::json::object situation;    // {tried:[{tool,args,error}], error:{...}}
    std::string text;                 // what the user said
    std::string outcome = "pending";  // pending | succeeded | failed
    std::int64_t created_ms = 0;
};

struct Playbook {
    std::string id;  // "pbk-..."
    std::string user_id;
    std::string goal;
    std::string guidance;
    std::vector<std::string> steps;  // the actions that worked, e.g. "fs_read {path: notes/todo.md}"
    std::string source_guidance_id;
    std::int64_t created_ms = 0;
    double score = 0;  // relevance when returned by find_playbooks (higher is better)
};

class GuidanceStore {
public:
    static Result<std::unique_ptr<GuidanceStore>> open(const std::filesystem::path& database_file);

    Status add_guidance(GuidanceRecord& record);  // assigns id and created_ms
    Status set_outcome(std::string_view guidance_id, std::string_view outcome);
    Result<GuidanceRecord> get_guidance(std::string_view id) const;

    Status add_playbook(Playbook& playbook);  // assigns id and created_ms
    // The playbooks of `user_id` whose goal or guidance shares words with `goal`, best first.
    Result<std::vector<Playbook>> find_playbooks(std::string_view user_id, std::string_view goal,
                                                 std::size_t limit = 3) const;

private:
    explicit GuidanceStore(db::SqliteConnection connection) : connection_(std::move(connection)) {}
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
};

// An FTS5 query matching any of the goal's words (quoted, so punctuation cannot break the syntax).
std::string fts_any_words_query(std::string_view text);

}  // namespace skillhost::store
