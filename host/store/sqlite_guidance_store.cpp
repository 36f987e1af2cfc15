#include "store/sqlite_guidance_store.hpp"

#include "db/sqlite_connection.hpp"
#include "db/sqlite_schema.hpp"
#include "store/run_record.hpp"

#include <boost/json.hpp>
#include <sqlite3.h>

#include <mutex>

namespace skillhost::store {
namespace {

class SqliteGuidanceStore final : public GuidanceStore {
public:
    explicit SqliteGuidanceStore(db::SqliteConnection connection) : connection_(std::move(connection)) {}

    Status add_guidance(GuidanceRecord& record) override;
    Status set_outcome(std::string_view guidance_id, std::string_view outcome) override;
    Result<GuidanceRecord> get_guidance(std::string_view id) const override;
    Status add_playbook(Playbook& playbook) override;
    Result<std::vector<Playbook>> find_playbooks(std::string_view user_id, std::string_view goal,
                                                 std::size_t limit) const override;
    Result<PlaybookPage> list_playbooks(std::string_view user_id, std::size_t limit,
                                        std::string_view cursor) const override;

private:
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
};

constexpr const char* kPlaybookColumns =
    "p.id, p.user_id, p.goal, p.guidance, p.steps, p.source_guidance_id, p.created_ms";

// A row whose first columns are kPlaybookColumns.
Playbook playbook_of(const db::SqliteStatement& statement) {
    Playbook playbook;
    playbook.id = statement.text(0);
    playbook.user_id = statement.text(1);
    playbook.goal = statement.text(2);
    playbook.guidance = statement.text(3);
    playbook.steps = parse_steps(statement.text(4));
    playbook.source_guidance_id = statement.text(5);
    playbook.created_ms = statement.integer(6);
    return playbook;
}

}  // namespace

Result<std::unique_ptr<GuidanceStore>> open_sqlite_guidance_store(const std::filesystem::path& database_file) {
    auto connection = db::open_migrated_sqlite(database_file);
    if (!connection) return connection.error();
    return std::unique_ptr<GuidanceStore>(new SqliteGuidanceStore(std::move(connection.value())));
}

Status SqliteGuidanceStore::add_guidance(GuidanceRecord& record) {
    std::lock_guard lock(mutex_);
    if (record.id.empty()) record.id = new_id("gdn");
    record.created_ms = unix_ms_now();
    db::SqliteStatement statement(
        connection_,
        "INSERT INTO guidance(id, run_id, user_id, goal, situation, text, outcome, created_ms)"
        " VALUES(?,?,?,?,?,?,?,?)");
    statement.bind(1, record.id).bind(2, record.run_id).bind(3, record.user_id).bind(4, record.goal);
    statement.bind(5, boost::json::serialize(record.situation)).bind(6, record.text).bind(7, record.outcome);
    statement.bind(8, record.created_ms);
    if (statement.step() != SQLITE_DONE) return connection_.error("storing guidance for run " + record.run_id);
    return {};
}

Status SqliteGuidanceStore::set_outcome(std::string_view guidance_id, std::string_view outcome) {
    std::lock_guard lock(mutex_);
    db::SqliteStatement statement(connection_, "UPDATE guidance SET outcome = ? WHERE id = ?");
    statement.bind(1, outcome).bind(2, guidance_id);
    if (statement.step() != SQLITE_DONE) return connection_.error("recording the outcome of guidance");
    return {};
}

Result<GuidanceRecord> SqliteGuidanceStore::get_guidance(std::string_view id) const {
    std::lock_guard lock(mutex_);
    db::SqliteStatement statement(
        connection_,
        "SELECT id, run_id, user_id, goal, situation, text, outcome, created_ms FROM guidance WHERE id = ?");
    statement.bind(1, id);
    const int rc = statement.step();
    if (rc == SQLITE_DONE) return guidance_not_found_error(id);
    if (rc != SQLITE_ROW) return connection_.error("reading guidance");
    GuidanceRecord record;
    record.id = statement.text(0);
    record.run_id = statement.text(1);
    record.user_id = statement.text(2);
    record.goal = statement.text(3);
    record.situation = parse_situation(statement.text(4));
    record.text = statement.text(5);
    record.outcome = statement.text(6);
    record.created_ms = statement.integer(7);
    return record;
}

Status SqliteGuidanceStore::add_playbook(Playbook& playbook) {
    std::lock_guard lock(mutex_);
    if (playbook.id.empty()) playbook.id = new_id("pbk");
    playbook.created_ms = unix_ms_now();
    db::SqliteTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun();
    {
        db::SqliteStatement statement(connection_,
                                      "INSERT INTO playbooks(id, user_id, goal, guidance, steps, source_guidance_id, "
                                      "created_ms) VALUES(?,?,?,?,?,?,?)");
        statement.bind(1, playbook.id).bind(2, playbook.user_id).bind(3, playbook.goal).bind(4, playbook.guidance);
        statement.bind(5, serialize_steps(playbook.steps))
            .bind(6, playbook.source_guidance_id)
            .bind(7, playbook.created_ms);
        if (statement.step() != SQLITE_DONE) return connection_.error("storing a playbook");
    }
    {
        db::SqliteStatement statement(connection_, "INSERT INTO playbooks_fts(id, goal, guidance) VALUES(?,?,?)");
        statement.bind(1, playbook.id).bind(2, playbook.goal).bind(3, playbook.guidance);
        if (statement.step() != SQLITE_DONE) return connection_.error("indexing a playbook");
    }
    return transaction.commit();
}

Result<std::vector<Playbook>> SqliteGuidanceStore::find_playbooks(std::string_view user_id, std::string_view goal,
                                                                  std::size_t limit) const {
    std::vector<Playbook> found;
    const std::string query = fts_any_words_query(goal);
    if (query.empty()) return found;
    std::lock_guard lock(mutex_);
    db::SqliteStatement statement(connection_, std::string("SELECT ") + kPlaybookColumns +
                                                   ", CAST(-bm25(playbooks_fts) * 1000 AS INTEGER)"
                                                   " FROM playbooks_fts JOIN playbooks p ON p.id = playbooks_fts.id"
                                                   " WHERE playbooks_fts MATCH ? AND p.user_id = ?"
                                                   " ORDER BY bm25(playbooks_fts) LIMIT ?");
    if (!statement.prepared()) return connection_.error("preparing the playbook search");
    statement.bind(1, query).bind(2, user_id).bind(3, static_cast<std::int64_t>(limit));
    for (int rc = statement.step(); rc != SQLITE_DONE; rc = statement.step()) {
        if (rc != SQLITE_ROW) return connection_.error("searching playbooks");
        Playbook playbook = playbook_of(statement);
        // bm25() is lower for better matches; the query flips it so callers read "higher is better".
        playbook.score = static_cast<double>(statement.integer(7)) / 1000.0;
        found.push_back(std::move(playbook));
    }
    return found;
}

Result<PlaybookPage> SqliteGuidanceStore::list_playbooks(std::string_view user_id, std::size_t limit,
                                                         std::string_view cursor) const {
    auto after = parse_playbook_cursor(cursor);
    if (!after) return after.error();
    const std::size_t page_size = playbook_page_size(limit);
    std::lock_guard lock(mutex_);
    db::SqliteStatement statement(connection_, std::string("SELECT ") + kPlaybookColumns +
                                                   " FROM playbooks p WHERE p.user_id = ?"
                                                   " AND (p.created_ms < ? OR (p.created_ms = ? AND p.id < ?))"
                                                   " ORDER BY p.created_ms DESC, p.id DESC LIMIT ?");
    if (!statement.prepared()) return connection_.error("preparing the playbook listing");
    statement.bind(1, user_id).bind(2, after->created_ms).bind(3, after->created_ms).bind(4, after->id);
    // One more than the page: whether it exists says whether there is a next page.
    statement.bind(5, static_cast<std::int64_t>(page_size + 1));
    PlaybookPage page;
    for (int rc = statement.step(); rc != SQLITE_DONE; rc = statement.step()) {
        if (rc != SQLITE_ROW) return connection_.error("listing playbooks");
        page.playbooks.push_back(playbook_of(statement));
    }
    if (page.playbooks.size() > page_size) {
        page.playbooks.pop_back();
        page.next_cursor = playbook_cursor(page.playbooks.back());
    }
    return page;
}

}  // namespace skillhost::store
