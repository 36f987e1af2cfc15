#include "store/postgres_guidance_store.hpp"

#include "db/postgres_connection.hpp"
#include "db/postgres_schema.hpp"
#include "store/run_record.hpp"

#include <boost/json/serialize.hpp>

#include <mutex>

namespace skillhost::store {
namespace {

constexpr const char* kPlaybookColumns = "id, user_id, goal, guidance, steps, source_guidance_id, created_ms";

// Row `row` of `rows`, whose first columns are kPlaybookColumns.
Playbook playbook_of(const db::PgResult& rows, int row) {
    Playbook playbook;
    playbook.id = rows.text(row, 0);
    playbook.user_id = rows.text(row, 1);
    playbook.goal = rows.text(row, 2);
    playbook.guidance = rows.text(row, 3);
    playbook.steps = parse_steps(rows.text(row, 4));
    playbook.source_guidance_id = rows.text(row, 5);
    playbook.created_ms = rows.integer(row, 6);
    return playbook;
}

class PostgresGuidanceStore final : public GuidanceStore {
public:
    explicit PostgresGuidanceStore(db::PgConnection connection) : connection_(std::move(connection)) {}

    Status add_guidance(GuidanceRecord& record) override {
        std::lock_guard lock(mutex_);
        if (record.id.empty()) record.id = new_id("gdn");
        record.created_ms = unix_ms_now();
        auto inserted = connection_.query(
            "INSERT INTO guidance(id, run_id, user_id, goal, situation, text, outcome, created_ms)"
            " VALUES($1,$2,$3,$4,$5,$6,$7,$8)",
            {record.id, record.run_id, record.user_id, record.goal, boost::json::serialize(record.situation),
             record.text, record.outcome, std::to_string(record.created_ms)});
        if (!inserted) return inserted.error();
        return {};
    }

    Status set_outcome(std::string_view guidance_id, std::string_view outcome) override {
        std::lock_guard lock(mutex_);
        auto updated = connection_.query("UPDATE guidance SET outcome = $1 WHERE id = $2",
                                         {std::string(outcome), std::string(guidance_id)});
        if (!updated) return updated.error();
        return {};
    }

    Result<GuidanceRecord> get_guidance(std::string_view id) const override {
        std::lock_guard lock(mutex_);
        auto rows = connection_.query(
            "SELECT id, run_id, user_id, goal, situation, text, outcome, created_ms FROM guidance WHERE id = $1",
            {std::string(id)});
        if (!rows) return rows.error();
        if (rows->rows() == 0) return guidance_not_found_error(id);
        GuidanceRecord record;
        record.id = rows->text(0, 0);
        record.run_id = rows->text(0, 1);
        record.user_id = rows->text(0, 2);
        record.goal = rows->text(0, 3);
        record.situation = parse_situation(rows->text(0, 4));
        record.text = rows->text(0, 5);
        record.outcome = rows->text(0, 6);
        record.created_ms = rows->integer(0, 7);
        return record;
    }

    Status add_playbook(Playbook& playbook) override {
        std::lock_guard lock(mutex_);
        if (playbook.id.empty()) playbook.id = new_id("pbk");
        playbook.created_ms = unix_ms_now();
        // The search column is generated from goal and guidance, so one INSERT indexes it too.
        auto inserted = connection_.query(
            "INSERT INTO playbooks(id, user_id, goal, guidance, steps, source_guidance_id, created_ms)"
            " VALUES($1,$2,$3,$4,$5,$6,$7)",
            {playbook.id, playbook.user_id, playbook.goal, playbook.guidance, serialize_steps(playbook.steps),
             playbook.source_guidance_id, std::to_string(playbook.created_ms)});
        if (!inserted) return inserted.error();
        return {};
    }

    Result<std::vector<Playbook>> find_playbooks(std::string_view user_id, std::string_view goal,
                                                 std::size_t limit) const override {
        std::vector<Playbook> found;
        // Only [a-z0-9] words joined by `|`: nothing in a goal can change the query's syntax.
        std::string query;
        for (const auto& word : goal_search_words(goal)) query += (query.empty() ? "" : " | ") + word;
        if (query.empty()) return found;
        std::lock_guard lock(mutex_);
        auto rows = connection_.query(
            std::string("SELECT ") + kPlaybookColumns +
                ", ts_rank(search, q) FROM playbooks, to_tsquery('simple', $1) q"
                " WHERE search @@ q AND user_id = $2 ORDER BY ts_rank(search, q) DESC, created_ms DESC LIMIT $3",
            {query, std::string(user_id), std::to_string(limit)});
        if (!rows) return rows.error();
        for (int row = 0; row < rows->rows(); ++row) {
            Playbook playbook = playbook_of(*rows, row);
            playbook.score = std::strtod(rows->text(row, 7).c_str(), nullptr);
            found.push_back(std::move(playbook));
        }
        return found;
    }

    Result<PlaybookPage> list_playbooks(std::string_view user_id, std::size_t limit,
                                        std::string_view cursor) const override {
        auto after = parse_playbook_cursor(cursor);
        if (!after) return after.error();
        const std::size_t page_size = playbook_page_size(limit);
        std::lock_guard lock(mutex_);
        // One more than the page: whether it exists says whether there is a next page.
        auto rows = connection_.query(
            std::string("SELECT ") + kPlaybookColumns +
                " FROM playbooks WHERE user_id = $1"
                " AND (created_ms < $2 OR (created_ms = $2 AND id < $3))"
                " ORDER BY created_ms DESC, id DESC LIMIT $4",
            {std::string(user_id), std::to_string(after->created_ms), after->id, std::to_string(page_size + 1)});
        if (!rows) return rows.error();
        PlaybookPage page;
        for (int row = 0; row < rows->rows(); ++row) page.playbooks.push_back(playbook_of(*rows, row));
        if (page.playbooks.size() > page_size) {
            page.playbooks.pop_back();
            page.next_cursor = playbook_cursor(page.playbooks.back());
        }
        return page;
    }

private:
    mutable std::mutex mutex_;
    mutable db::PgConnection connection_;
};

}  // namespace

Result<std::unique_ptr<GuidanceStore>> open_postgres_guidance_store(const std::string& url) {
    auto connection = db::open_migrated_postgres(url);
    if (!connection) return connection.error();
    return std::unique_ptr<GuidanceStore>(new PostgresGuidanceStore(std::move(connection.value())));
}

}  // namespace skillhost::store
