// What users taught the operator: guidance given to a stuck run (with the situation it was given
// in and how the resumed run ended) and the playbooks distilled from guidance that worked. Later
// runs find playbooks for similar goals by full-text match (SQLite FTS5 with BM25 ranking, or
// PostgreSQL tsvector with ts_rank).
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
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

// One page of a user's playbooks, newest first (list_playbooks).
struct PlaybookPage {
    std::vector<Playbook> playbooks;
    std::string next_cursor;  // pass it back for the next page; empty on the last one
};

// The interface every backend implements (sqlite_guidance_store.cpp, postgres_guidance_store.cpp).
class GuidanceStore {
public:
    // The SQLite file's guidance and playbooks.
    static Result<std::unique_ptr<GuidanceStore>> open(const std::filesystem::path& database_file);
    // Those of whichever backend `location` names (migrating its schema first).
    static Result<std::unique_ptr<GuidanceStore>> open(const db::StorageLocation& location);
    virtual ~GuidanceStore() = default;

    virtual Status add_guidance(GuidanceRecord& record) = 0;  // assigns id and created_ms
    virtual Status set_outcome(std::string_view guidance_id, std::string_view outcome) = 0;
    virtual Result<GuidanceRecord> get_guidance(std::string_view id) const = 0;

    virtual Status add_playbook(Playbook& playbook) = 0;  // assigns id and created_ms
    // The playbooks of `user_id` whose goal or guidance shares words with `goal`, best first.
    virtual Result<std::vector<Playbook>> find_playbooks(std::string_view user_id, std::string_view goal,
                                                         std::size_t limit = 3) const = 0;
    // The playbooks of `user_id`, newest first: at most `limit` (taken as 1 to kMaxPlaybookPage)
    // after `cursor`, a next_cursor of an earlier page (empty: from the newest). INVALID_CURSOR
    // for a cursor this did not issue.
    virtual Result<PlaybookPage> list_playbooks(std::string_view user_id, std::size_t limit,
                                                std::string_view cursor = {}) const = 0;

    static constexpr std::size_t kMaxPlaybookPage = 500;
};

// What both backends answer and store alike.
Error guidance_not_found_error(std::string_view id);
boost::json::object parse_situation(std::string_view stored);
std::string serialize_steps(const std::vector<std::string>& steps);
std::vector<std::string> parse_steps(std::string_view stored);

// Where a page of list_playbooks starts: after (created_ms, id) in newest-first order. The first
// page starts after {INT64_MAX, ""}, which every playbook comes after.
struct PlaybookPosition {
    std::int64_t created_ms = 0;
    std::string id;
};
Result<PlaybookPosition> parse_playbook_cursor(std::string_view cursor);
std::string playbook_cursor(const Playbook& last);
// `limit` clamped to 1..kMaxPlaybookPage.
std::size_t playbook_page_size(std::size_t limit);

// The words of a goal worth matching on: lowercase ASCII letters and digits, longer than one
// character, without stop words.
std::set<std::string> goal_search_words(std::string_view text);

// An FTS5 query matching any of the goal's words (quoted, so punctuation cannot break the syntax).
std::string fts_any_words_query(std::string_view text);

}  // namespace skillhost::store
