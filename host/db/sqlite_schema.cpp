#include "db/sqlite_schema.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <string>

namespace skillhost::db {
namespace {

// Version 1: the tables as the first release created them. IF NOT EXISTS, because files of the
// first release already have them (at user_version 0).
constexpr const char* first_release_tables =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_ms INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS approvals ("
    " id TEXT PRIMARY KEY,"
    " user_id TEXT NOT NULL,"
    " skill_id TEXT NOT NULL,"
    " arguments TEXT NOT NULL,"
    " requested_at_ms INTEGER NOT NULL,"
    " requested_by TEXT NOT NULL,"
    " preview TEXT NOT NULL,"
    " expires_at_ms INTEGER NOT NULL,"
    " state TEXT NOT NULL CHECK (state IN ('pending','approved','executed','failed','rejected','expired')),"
    " resolved_by TEXT,"
    " resolved_at_ms INTEGER,"
    " completed_at_ms INTEGER,"
    " reason TEXT,"
    " result TEXT,"
    " claim_host TEXT,"
    " claim_pid INTEGER,"
    " claim_start_ticks INTEGER);"
    "CREATE INDEX IF NOT EXISTS approvals_by_state ON approvals(state, expires_at_ms);"
    // Defence in depth: even a buggy caller or a hand-edited database cannot move an approval along
    // an edge the state machine does not have (e.g. executed -> approved, which would re-run it).
    "CREATE TRIGGER IF NOT EXISTS approvals_legal_transitions BEFORE UPDATE OF state ON approvals "
    "WHEN NOT ((OLD.state = 'pending' AND NEW.state IN ('approved','rejected','expired')) OR "
    "          (OLD.state = 'approved' AND NEW.state IN ('executed','failed'))) "
    "BEGIN SELECT RAISE(ABORT, 'illegal approval state transition'); END;"
    "CREATE TABLE IF NOT EXISTS api_tokens ("
    " sha256 TEXT PRIMARY KEY, user_id TEXT NOT NULL, label TEXT NOT NULL, created_ms INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS user_modes ("
    " user_id TEXT PRIMARY KEY, mode TEXT NOT NULL, updated_at_ms INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS runs ("
    " id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL, goal TEXT NOT NULL,"
    " created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, record TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS runs_by_user ON runs(user_id, created_ms);"
    "CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, created_ms);"
    "CREATE TABLE IF NOT EXISTS guidance ("
    " id TEXT PRIMARY KEY, run_id TEXT NOT NULL, user_id TEXT NOT NULL, goal TEXT NOT NULL,"
    " situation TEXT NOT NULL, text TEXT NOT NULL, outcome TEXT NOT NULL, created_ms INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS playbooks ("
    " id TEXT PRIMARY KEY, user_id TEXT NOT NULL, goal TEXT NOT NULL, guidance TEXT NOT NULL,"
    " steps TEXT NOT NULL, source_guidance_id TEXT NOT NULL, created_ms INTEGER NOT NULL);"
    "CREATE VIRTUAL TABLE IF NOT EXISTS playbooks_fts USING fts5(id UNINDEXED, goal, guidance);";

Status add_column_if_missing(SqliteConnection& connection, std::string_view table, std::string_view column,
                             std::string_view definition) {
    int rc = SQLITE_ERROR;
    {
        SqliteStatement probe(connection, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
        if (!probe.prepared()) return connection.error("reading the " + std::string(table) + " table");
        probe.bind(1, table).bind(2, column);
        rc = probe.step();
    }
    if (rc == SQLITE_ROW) return {};
    if (rc != SQLITE_DONE) return connection.error("reading the " + std::string(table) + " table");
    return connection.exec("ALTER TABLE " + std::string(table) + " ADD COLUMN " + std::string(column) + " " +
                           std::string(definition));
}

Status apply_first_release_tables(SqliteConnection& connection) {
    return connection.exec(first_release_tables);
}

// Version 2: columns that versions between the first release and schema versioning added on open,
// so a file may have any of them already. Tokens from before scopes keep every scope (they could do
// everything then); approvals from before scopes came from no token; running runs have no owner.
Status apply_scopes_and_owners(SqliteConnection& connection) {
    if (auto st =
            add_column_if_missing(connection, "api_tokens", "scopes", "TEXT NOT NULL DEFAULT 'call,approve,admin'");
        !st)
        return st;
    if (auto st = add_column_if_missing(connection, "approvals", "requested_token", "TEXT"); !st) return st;
    return add_column_if_missing(connection, "runs", "owner", "TEXT");
}

// Version 3: the per-run event log (what a stream replays after Last-Event-ID).
Status apply_run_events(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE run_events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,"
        " payload TEXT NOT NULL, created_ms INTEGER NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID");
}

// Version 4: pending elicitations, a skill's questions to a user no front end could ask at the
// time (CLI, HTTP API). The transitions mirror the approvals': pending -> answered (exactly once)
// -> completed | failed, pending -> expired.
Status apply_elicitations(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE elicitations ("
        " id TEXT PRIMARY KEY, user_id TEXT NOT NULL, skill_id TEXT NOT NULL, arguments TEXT NOT NULL,"
        " requested_at_ms INTEGER NOT NULL, requested_by TEXT NOT NULL, requested_token TEXT,"
        " message TEXT NOT NULL, requested_schema TEXT NOT NULL, prior_answers TEXT NOT NULL,"
        " expires_at_ms INTEGER NOT NULL,"
        " state TEXT NOT NULL CHECK (state IN ('pending','answered','completed','failed','expired')),"
        " action TEXT, content TEXT, answered_by TEXT, answered_at_ms INTEGER, completed_at_ms INTEGER,"
        " reason TEXT, result TEXT, claim_host TEXT, claim_pid INTEGER, claim_start_ticks INTEGER);"
        "CREATE INDEX elicitations_by_user ON elicitations(user_id, state, requested_at_ms);"
        "CREATE INDEX elicitations_by_state ON elicitations(state, expires_at_ms);"
        "CREATE TRIGGER elicitations_legal_transitions BEFORE UPDATE OF state ON elicitations "
        "WHEN NOT ((OLD.state = 'pending' AND NEW.state IN ('answered','expired')) OR "
        "          (OLD.state = 'answered' AND NEW.state IN ('completed','failed'))) "
        "BEGIN SELECT RAISE(ABORT, 'illegal elicitation state transition'); END;");
}

// Version 5: MCP-over-HTTP sessions, so a client's session survives a daemon restart (as on
// PostgreSQL, whose version 2 has the same table).
Status apply_mcp_sessions(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE mcp_sessions ("
        " id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL, last_seen_ms INTEGER NOT NULL, record TEXT NOT NULL);"
        "CREATE INDEX mcp_sessions_by_last_seen ON mcp_sessions(last_seen_ms);");
}

// Version 6: the first answer to each Idempotency-Key of the HTTP API, so a retry after a restart
// (or on another instance) replays it instead of acting twice. `state` is in_progress (held by
// `owner`, a process) until the answer is kept. Expired rows are deleted by created_ms.
Status apply_idempotency_keys(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE idempotency_keys ("
        " scope TEXT NOT NULL, request_key TEXT NOT NULL, fingerprint TEXT NOT NULL,"
        " state TEXT NOT NULL CHECK (state IN ('in_progress','answered')), owner TEXT NOT NULL,"
        " created_ms INTEGER NOT NULL, answered_ms INTEGER, answer TEXT,"
        " PRIMARY KEY (scope, request_key)) WITHOUT ROWID;"
        "CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_ms);");
}

// Version 7: the records plugins keep through "skillhost.storage/1", per (plugin, user): the
// records, each store's usage and version counter (one row, also what writers serialise on), and
// the per-collection sequences of next_id().
Status apply_plugin_data(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE plugin_records ("
        " plugin TEXT NOT NULL, user_id TEXT NOT NULL, collection TEXT NOT NULL, key TEXT NOT NULL,"
        " value TEXT NOT NULL, size INTEGER NOT NULL, version INTEGER NOT NULL, updated_ms INTEGER NOT NULL,"
        " PRIMARY KEY (plugin, user_id, collection, key)) WITHOUT ROWID;"
        "CREATE TABLE plugin_data_usage ("
        " plugin TEXT NOT NULL, user_id TEXT NOT NULL, records INTEGER NOT NULL, bytes INTEGER NOT NULL,"
        " last_version INTEGER NOT NULL, PRIMARY KEY (plugin, user_id)) WITHOUT ROWID;"
        "CREATE TABLE plugin_sequences ("
        " plugin TEXT NOT NULL, user_id TEXT NOT NULL, collection TEXT NOT NULL, last_id INTEGER NOT NULL,"
        " PRIMARY KEY (plugin, user_id, collection)) WITHOUT ROWID;");
}

// Version 8: approvals and elicitations become the two kinds of one table of pending decisions,
// with one state machine: pending -> claimed -> succeeded | failed, pending -> rejected | expired
// (approved/executed and answered/completed are the kinds' words for claimed/succeeded). Every row
// moves across with its id, times, claim and outcome; what only one kind has goes to `request`
// (an approval's preview; a question's message, form and earlier answers) and `answer` (a
// question's action and content). JSON a hand-edited row spoiled becomes an empty object.
Status apply_pending_decisions(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE pending_decisions ("
        " id TEXT PRIMARY KEY,"
        " kind TEXT NOT NULL CHECK (kind IN ('approval','question')),"
        " user_id TEXT NOT NULL, skill_id TEXT NOT NULL, arguments TEXT NOT NULL,"
        " requested_at_ms INTEGER NOT NULL, requested_by TEXT NOT NULL, requested_token TEXT,"
        " request TEXT NOT NULL, expires_at_ms INTEGER NOT NULL,"
        " state TEXT NOT NULL CHECK (state IN ('pending','claimed','succeeded','failed','rejected','expired')),"
        " answer TEXT, resolved_by TEXT, resolved_at_ms INTEGER, completed_at_ms INTEGER, reason TEXT, result TEXT,"
        " claim_host TEXT, claim_pid INTEGER, claim_start_ticks INTEGER);"
        "CREATE INDEX pending_decisions_by_user ON pending_decisions(kind, user_id, state, requested_at_ms);"
        "CREATE INDEX pending_decisions_by_state ON pending_decisions(state, expires_at_ms);"
        // Defence in depth: even a buggy caller or a hand-edited database cannot move a decision
        // along an edge the state machine does not have (e.g. succeeded -> claimed, a second run).
        "CREATE TRIGGER pending_decisions_legal_transitions BEFORE UPDATE OF state ON pending_decisions "
        "WHEN NOT ((OLD.state = 'pending' AND NEW.state IN ('claimed','rejected','expired')) OR "
        "          (OLD.state = 'claimed' AND NEW.state IN ('succeeded','failed'))) "
        "BEGIN SELECT RAISE(ABORT, 'illegal decision state transition'); END;"
        "INSERT INTO pending_decisions (id, kind, user_id, skill_id, arguments, requested_at_ms, requested_by,"
        " requested_token, request, expires_at_ms, state, answer, resolved_by, resolved_at_ms, completed_at_ms,"
        " reason, result, claim_host, claim_pid, claim_start_ticks)"
        " SELECT id, 'approval', user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token,"
        " json_object('preview', preview), expires_at_ms,"
        " CASE state WHEN 'approved' THEN 'claimed' WHEN 'executed' THEN 'succeeded'"
        "  WHEN 'pending' THEN 'pending' WHEN 'rejected' THEN 'rejected' WHEN 'expired' THEN 'expired'"
        "  ELSE 'failed' END,"
        " NULL, resolved_by, resolved_at_ms, completed_at_ms, reason, result, claim_host, claim_pid,"
        " claim_start_ticks FROM approvals;"
        "INSERT INTO pending_decisions (id, kind, user_id, skill_id, arguments, requested_at_ms, requested_by,"
        " requested_token, request, expires_at_ms, state, answer, resolved_by, resolved_at_ms, completed_at_ms,"
        " reason, result, claim_host, claim_pid, claim_start_ticks)"
        " SELECT id, 'question', user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token,"
        " json_object('message', message,"
        "  'requestedSchema', CASE WHEN json_valid(requested_schema) THEN json(requested_schema) ELSE json_object() "
        "END,"
        "  'prior_answers', CASE WHEN json_valid(prior_answers) THEN json(prior_answers) ELSE json_array() END),"
        " expires_at_ms,"
        " CASE state WHEN 'answered' THEN 'claimed' WHEN 'completed' THEN 'succeeded'"
        "  WHEN 'pending' THEN 'pending' WHEN 'expired' THEN 'expired' ELSE 'failed' END,"
        " CASE WHEN action IS NULL THEN NULL ELSE json_object('action', action, 'content',"
        "  CASE WHEN json_valid(content) THEN json(content) ELSE json_object() END) END,"
        " answered_by, answered_at_ms, completed_at_ms, reason, result, claim_host, claim_pid, claim_start_ticks"
        " FROM elicitations;"
        "DROP TABLE approvals;"
        "DROP TABLE elicitations;");
}

// Version 9: the gateway's pinned tool definitions (issue 37). `definition_pins` holds each foreign
// MCP server's pinned definitions (tool '' is its instructions); `definition_changes` the one
// definition_change decision asked for each (server, tool, pinned hash, listed hash), whose primary
// key keeps several processes from asking twice. pending_decisions gains the third kind: SQLite
// cannot change a CHECK, so the table is rebuilt with every row, its indexes and its trigger.
Status apply_definition_pins(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE definition_pins ("
        " server TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, definition TEXT NOT NULL,"
        " pinned_at_ms INTEGER NOT NULL, pinned_by TEXT NOT NULL, PRIMARY KEY (server, tool));"
        "CREATE TABLE definition_changes ("
        " server TEXT NOT NULL, tool TEXT NOT NULL, old_hash TEXT NOT NULL, new_hash TEXT NOT NULL,"
        " decision_id TEXT NOT NULL, asked_at_ms INTEGER NOT NULL,"
        " PRIMARY KEY (server, tool, old_hash, new_hash));"
        "CREATE TABLE pending_decisions_v9 ("
        " id TEXT PRIMARY KEY,"
        " kind TEXT NOT NULL CHECK (kind IN ('approval','question','definition_change')),"
        " user_id TEXT NOT NULL, skill_id TEXT NOT NULL, arguments TEXT NOT NULL,"
        " requested_at_ms INTEGER NOT NULL, requested_by TEXT NOT NULL, requested_token TEXT,"
        " request TEXT NOT NULL, expires_at_ms INTEGER NOT NULL,"
        " state TEXT NOT NULL CHECK (state IN ('pending','claimed','succeeded','failed','rejected','expired')),"
        " answer TEXT, resolved_by TEXT, resolved_at_ms INTEGER, completed_at_ms INTEGER, reason TEXT, result TEXT,"
        " claim_host TEXT, claim_pid INTEGER, claim_start_ticks INTEGER);"
        "INSERT INTO pending_decisions_v9 SELECT id, kind, user_id, skill_id, arguments, requested_at_ms,"
        " requested_by, requested_token, request, expires_at_ms, state, answer, resolved_by, resolved_at_ms,"
        " completed_at_ms, reason, result, claim_host, claim_pid, claim_start_ticks FROM pending_decisions;"
        "DROP TABLE pending_decisions;"
        "ALTER TABLE pending_decisions_v9 RENAME TO pending_decisions;"
        "CREATE INDEX pending_decisions_by_user ON pending_decisions(kind, user_id, state, requested_at_ms);"
        "CREATE INDEX pending_decisions_by_state ON pending_decisions(state, expires_at_ms);"
        "CREATE TRIGGER pending_decisions_legal_transitions BEFORE UPDATE OF state ON pending_decisions "
        "WHEN NOT ((OLD.state = 'pending' AND NEW.state IN ('claimed','rejected','expired')) OR "
        "          (OLD.state = 'claimed' AND NEW.state IN ('succeeded','failed'))) "
        "BEGIN SELECT RAISE(ABORT, 'illegal decision state transition'); END;");
}

// Version 10: per-user secrets for foreign MCP servers (issue 37), sealed (AES-256-GCM under the
// host's secret key, auth/secret_box.hpp): the plaintext is never in the file.
Status apply_user_secrets(SqliteConnection& connection) {
    return connection.exec(
        "CREATE TABLE user_secrets ("
        " user_id TEXT NOT NULL, name TEXT NOT NULL, key_id TEXT NOT NULL, nonce TEXT NOT NULL,"
        " sealed TEXT NOT NULL, updated_at_ms INTEGER NOT NULL, updated_by TEXT NOT NULL,"
        " PRIMARY KEY (user_id, name));");
}

struct SqliteMigration {
    SchemaMigration info;
    Status (*apply)(SqliteConnection&);
};

constexpr SqliteMigration migrations[] = {
    {{1, "tables of the first release: approvals, api_tokens, user_modes, runs, guidance, playbooks"},
     apply_first_release_tables},
    {{2, "token scopes, the token that requested an approval, the process that owns a running run"},
     apply_scopes_and_owners},
    {{3, "the per-run event log with a sequence number"}, apply_run_events},
    {{4, "pending elicitations: a skill's questions the CLI and the HTTP API answer later"}, apply_elicitations},
    {{5, "MCP-over-HTTP sessions, kept across a restart"}, apply_mcp_sessions},
    {{6, "the first answer to each Idempotency-Key, kept across a restart"}, apply_idempotency_keys},
    {{7, "plugin records, their usage and sequences (skillhost.storage/1)"}, apply_plugin_data},
    {{8, "approvals and elicitations as the two kinds of one table of pending decisions"}, apply_pending_decisions},
    {{9, "pinned definitions of foreign MCP servers' tools, and definition_change decisions"}, apply_definition_pins},
    {{10, "per-user secrets of foreign MCP servers, sealed"}, apply_user_secrets},
};

Result<int> read_user_version(const SqliteConnection& connection) {
    SqliteStatement statement(connection, "PRAGMA user_version");
    if (!statement.prepared() || statement.step() != SQLITE_ROW) return connection.error("reading the schema version");
    return static_cast<int>(statement.integer(0));
}

SchemaStatus status_at(const SqliteConnection& connection, int current) {
    return schema_status_at("sqlite", connection.file().string(), current, migrations);
}

}  // namespace

int latest_sqlite_schema_version() {
    return std::end(migrations)[-1].info.version;
}

Result<SchemaStatus> check_sqlite_schema(SqliteConnection& connection) {
    auto version = read_user_version(connection);
    if (!version) return version.error();
    return status_at(connection, *version);
}

Result<SchemaStatus> migrate_sqlite_schema(SqliteConnection& connection, int up_to) {
    auto before = check_sqlite_schema(connection);
    if (!before) return before.error();
    if (before->current > before->latest) return schema_too_new_error(*before);
    const int target = up_to > 0 && up_to < before->latest ? up_to : before->latest;
    if (before->current >= target) return before;
    SqliteTransaction transaction(connection);
    if (!transaction.begun()) return transaction.begun().error();
    // Another process may have migrated between the unlocked read and the write lock.
    auto locked = check_sqlite_schema(connection);
    if (!locked) return locked.error();
    if (locked->current > locked->latest) return schema_too_new_error(*locked);
    const auto now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (const auto& migration : migrations) {
        if (migration.info.version <= locked->current || migration.info.version > target) continue;
        if (auto st = migration.apply(connection); !st) return st.error();
        SqliteStatement record(connection,
                               "INSERT OR REPLACE INTO schema_migrations(version, description, applied_ms) "
                               "VALUES(?, ?, ?)");
        if (!record.prepared()) return connection.error("recording a schema migration");
        record.bind(1, std::int64_t{migration.info.version}).bind(2, migration.info.description).bind(3, now_ms);
        if (record.step() != SQLITE_DONE) return connection.error("recording a schema migration");
    }
    const int reached = std::max(locked->current, target);
    if (auto st = connection.exec("PRAGMA user_version = " + std::to_string(reached)); !st) return st.error();
    if (auto st = transaction.commit(); !st) return st.error();
    return status_at(connection, reached);
}

Result<SqliteConnection> open_migrated_sqlite(const std::filesystem::path& file) {
    auto connection = SqliteConnection::open(file);
    if (!connection) return connection.error();
    if (auto st = migrate_sqlite_schema(*connection); !st) return st.error();
    return connection;
}

}  // namespace skillhost::db
