#include "db/postgres_schema.hpp"

#include <algorithm>
#include <chrono>
#include <string>

namespace skillhost::db {
namespace {

// Version 1: the tables of the SQLite file at its version 2, plus what several instances share
// that one file never needed: a per-run event log with a sequence number and the audit records.
// Times are unix milliseconds (BIGINT) as in SQLite, so both backends hand the stores the same values.
constexpr const char* shared_state_tables = R"sql(
CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  skill_id TEXT NOT NULL,
  arguments TEXT NOT NULL,
  requested_at_ms BIGINT NOT NULL,
  requested_by TEXT NOT NULL,
  preview TEXT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending','approved','executed','failed','rejected','expired')),
  resolved_by TEXT,
  resolved_at_ms BIGINT,
  completed_at_ms BIGINT,
  reason TEXT,
  result TEXT,
  claim_host TEXT,
  claim_pid BIGINT,
  claim_start_ticks BIGINT,
  requested_token TEXT);
CREATE INDEX approvals_by_state ON approvals(state, expires_at_ms);
-- As in SQLite: no caller can move an approval along an edge the state machine does not have.
CREATE FUNCTION approvals_legal_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT ((OLD.state = 'pending' AND NEW.state IN ('approved','rejected','expired')) OR
          (OLD.state = 'approved' AND NEW.state IN ('executed','failed'))) THEN
    RAISE EXCEPTION 'illegal approval state transition from % to %', OLD.state, NEW.state
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER approvals_legal_transitions BEFORE UPDATE OF state ON approvals
  FOR EACH ROW EXECUTE FUNCTION approvals_legal_transition();
CREATE TABLE api_tokens (
  sha256 TEXT PRIMARY KEY, user_id TEXT NOT NULL, label TEXT NOT NULL, created_ms BIGINT NOT NULL,
  scopes TEXT NOT NULL DEFAULT 'call,approve,admin');
CREATE TABLE user_modes (user_id TEXT PRIMARY KEY, mode TEXT NOT NULL, updated_at_ms BIGINT NOT NULL);
CREATE TABLE runs (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL, goal TEXT NOT NULL,
  created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL, record TEXT NOT NULL, owner TEXT,
  row_order BIGSERIAL);
CREATE INDEX runs_by_user ON runs(user_id, created_ms);
CREATE INDEX runs_by_status ON runs(status, created_ms);
CREATE TABLE run_events (
  run_id TEXT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL, created_ms BIGINT NOT NULL,
  PRIMARY KEY (run_id, seq));
CREATE TABLE guidance (
  id TEXT PRIMARY KEY, run_id TEXT NOT NULL, user_id TEXT NOT NULL, goal TEXT NOT NULL,
  situation TEXT NOT NULL, text TEXT NOT NULL, outcome TEXT NOT NULL, created_ms BIGINT NOT NULL);
CREATE TABLE playbooks (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, goal TEXT NOT NULL, guidance TEXT NOT NULL,
  steps TEXT NOT NULL, source_guidance_id TEXT NOT NULL, created_ms BIGINT NOT NULL,
  search tsvector GENERATED ALWAYS AS (to_tsvector('simple', goal || ' ' || guidance)) STORED);
CREATE INDEX playbooks_search ON playbooks USING GIN (search);
CREATE TABLE audit_records (
  seq BIGSERIAL PRIMARY KEY, ts_ms BIGINT NOT NULL, kind TEXT NOT NULL, user_id TEXT, record TEXT NOT NULL);
CREATE INDEX audit_by_time ON audit_records(ts_ms);
)sql";

// Version 2: what several instances need to share a run's execution and an MCP session.
// run_leases: the instance driving a run, its fencing epoch (raised at every change of hands, so a
// write by an instance that lost the lease is refused) and the highest step claimed under it.
// mcp_sessions: an MCP-over-HTTP session any instance can serve.
constexpr const char* multi_instance_tables = R"sql(
CREATE TABLE run_leases (
  run_id TEXT PRIMARY KEY, owner TEXT, epoch BIGINT NOT NULL, expires_ms BIGINT NOT NULL,
  claimed_step INTEGER NOT NULL DEFAULT -1, claimed_epoch BIGINT NOT NULL DEFAULT 0);
CREATE INDEX run_leases_by_expiry ON run_leases(expires_ms) WHERE owner IS NOT NULL;
CREATE TABLE mcp_sessions (
  id TEXT PRIMARY KEY, created_ms BIGINT NOT NULL, last_seen_ms BIGINT NOT NULL, record TEXT NOT NULL);
CREATE INDEX mcp_sessions_by_last_seen ON mcp_sessions(last_seen_ms);
)sql";

// ---- Version 3: elicitations (its own block, so another version can be appended beside it) ----
// Pending elicitations, as in SQLite's version 4: a skill's questions to a user no front end
// could ask at the time, answered exactly once through the CLI or the HTTP API of any instance.
constexpr const char* elicitation_tables = R"sql(
CREATE TABLE elicitations (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, skill_id TEXT NOT NULL, arguments TEXT NOT NULL,
  requested_at_ms BIGINT NOT NULL, requested_by TEXT NOT NULL, requested_token TEXT,
  message TEXT NOT NULL, requested_schema TEXT NOT NULL, prior_answers TEXT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending','answered','completed','failed','expired')),
  action TEXT, content TEXT, answered_by TEXT, answered_at_ms BIGINT, completed_at_ms BIGINT,
  reason TEXT, result TEXT, claim_host TEXT, claim_pid BIGINT, claim_start_ticks BIGINT);
CREATE INDEX elicitations_by_user ON elicitations(user_id, state, requested_at_ms);
CREATE INDEX elicitations_by_state ON elicitations(state, expires_at_ms);
CREATE FUNCTION elicitations_legal_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT ((OLD.state = 'pending' AND NEW.state IN ('answered','expired')) OR
          (OLD.state = 'answered' AND NEW.state IN ('completed','failed'))) THEN
    RAISE EXCEPTION 'illegal elicitation state transition from % to %', OLD.state, NEW.state
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER elicitations_legal_transitions BEFORE UPDATE OF state ON elicitations
  FOR EACH ROW EXECUTE FUNCTION elicitations_legal_transition();
)sql";
// ---- end of version 3 ----

// ---- Version 4: Idempotency-Key answers (as SQLite's version 6) ----
// The first answer to each key of the HTTP API, shared by every instance: a retry that lands on
// another instance (or on a restarted one) replays it. in_progress rows name the owning process.
constexpr const char* idempotency_tables = R"sql(
CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL, request_key TEXT NOT NULL, fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_progress','answered')), owner TEXT NOT NULL,
  created_ms BIGINT NOT NULL, answered_ms BIGINT, answer TEXT,
  PRIMARY KEY (scope, request_key));
CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_ms);
)sql";
// ---- end of version 4 ----

// ---- Version 5: audit record ids ----
// A record kept in a home's audit outbox while the server was down carries an id, so inserting it
// again (a drain cut short by a crash) adds nothing. NULL for the records inserted directly.
constexpr const char* audit_record_ids = R"sql(
ALTER TABLE audit_records ADD COLUMN record_id TEXT;
CREATE UNIQUE INDEX audit_records_by_record_id ON audit_records(record_id);
)sql";
// ---- end of version 5 ----

// ---- version 6: the records plugins keep through "skillhost.storage/1" (as SQLite's version 7).
// Keys compare byte by byte (COLLATE "C"), as on SQLite, so list() orders and pages the same.
constexpr const char* plugin_data_tables = R"sql(
CREATE TABLE plugin_records (
  plugin TEXT NOT NULL, user_id TEXT NOT NULL, collection TEXT NOT NULL, key TEXT COLLATE "C" NOT NULL,
  value TEXT NOT NULL, size BIGINT NOT NULL, version BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
  PRIMARY KEY (plugin, user_id, collection, key));
CREATE TABLE plugin_data_usage (
  plugin TEXT NOT NULL, user_id TEXT NOT NULL, records BIGINT NOT NULL, bytes BIGINT NOT NULL,
  last_version BIGINT NOT NULL, PRIMARY KEY (plugin, user_id));
CREATE TABLE plugin_sequences (
  plugin TEXT NOT NULL, user_id TEXT NOT NULL, collection TEXT NOT NULL, last_id BIGINT NOT NULL,
  PRIMARY KEY (plugin, user_id, collection));
)sql";
// ---- end of version 6 ----

// ---- version 7: approvals and elicitations as the two kinds of one table of pending decisions
// (as SQLite's version 8): one state machine, pending -> claimed -> succeeded | failed, pending ->
// rejected | expired; every row moves across, what only one kind has goes to request / answer.
constexpr const char* pending_decision_table = R"sql(
CREATE TABLE pending_decisions (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('approval','question')),
  user_id TEXT NOT NULL, skill_id TEXT NOT NULL, arguments TEXT NOT NULL,
  requested_at_ms BIGINT NOT NULL, requested_by TEXT NOT NULL, requested_token TEXT,
  request TEXT NOT NULL, expires_at_ms BIGINT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending','claimed','succeeded','failed','rejected','expired')),
  answer TEXT, resolved_by TEXT, resolved_at_ms BIGINT, completed_at_ms BIGINT, reason TEXT, result TEXT,
  claim_host TEXT, claim_pid BIGINT, claim_start_ticks BIGINT);
CREATE INDEX pending_decisions_by_user ON pending_decisions(kind, user_id, state, requested_at_ms);
CREATE INDEX pending_decisions_by_state ON pending_decisions(state, expires_at_ms);
CREATE FUNCTION pending_decisions_legal_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT ((OLD.state = 'pending' AND NEW.state IN ('claimed','rejected','expired')) OR
          (OLD.state = 'claimed' AND NEW.state IN ('succeeded','failed'))) THEN
    RAISE EXCEPTION 'illegal decision state transition from % to %', OLD.state, NEW.state
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER pending_decisions_legal_transitions BEFORE UPDATE OF state ON pending_decisions
  FOR EACH ROW EXECUTE FUNCTION pending_decisions_legal_transition();
-- JSON a hand-edited row spoiled becomes an empty object rather than stopping the upgrade.
CREATE FUNCTION pending_decisions_json_or(text TEXT, fallback JSON) RETURNS JSON LANGUAGE plpgsql AS $$
BEGIN
  RETURN text::json;
EXCEPTION WHEN others THEN
  RETURN fallback;
END $$;
INSERT INTO pending_decisions (id, kind, user_id, skill_id, arguments, requested_at_ms, requested_by,
  requested_token, request, expires_at_ms, state, answer, resolved_by, resolved_at_ms, completed_at_ms,
  reason, result, claim_host, claim_pid, claim_start_ticks)
SELECT id, 'approval', user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token,
  json_build_object('preview', preview)::text, expires_at_ms,
  CASE state WHEN 'approved' THEN 'claimed' WHEN 'executed' THEN 'succeeded' ELSE state END,
  NULL, resolved_by, resolved_at_ms, completed_at_ms, reason, result, claim_host, claim_pid, claim_start_ticks
FROM approvals;
INSERT INTO pending_decisions (id, kind, user_id, skill_id, arguments, requested_at_ms, requested_by,
  requested_token, request, expires_at_ms, state, answer, resolved_by, resolved_at_ms, completed_at_ms,
  reason, result, claim_host, claim_pid, claim_start_ticks)
SELECT id, 'question', user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token,
  json_build_object('message', message,
                    'requestedSchema', pending_decisions_json_or(requested_schema, '{}'::json),
                    'prior_answers', pending_decisions_json_or(prior_answers, '[]'::json))::text,
  expires_at_ms,
  CASE state WHEN 'answered' THEN 'claimed' WHEN 'completed' THEN 'succeeded' ELSE state END,
  CASE WHEN action IS NULL THEN NULL
       ELSE json_build_object('action', action, 'content', pending_decisions_json_or(content, '{}'::json))::text END,
  answered_by, answered_at_ms, completed_at_ms, reason, result, claim_host, claim_pid, claim_start_ticks
FROM elicitations;
DROP FUNCTION pending_decisions_json_or(TEXT, JSON);
DROP TABLE approvals;
DROP FUNCTION approvals_legal_transition();
DROP TABLE elicitations;
DROP FUNCTION elicitations_legal_transition();
)sql";
// ---- end of version 7 ----

// ---- version 8: pinned definitions of foreign MCP servers' tools (as SQLite's version 9), and
// definition_change as the third kind of pending decision.
constexpr const char* definition_pin_tables = R"sql(
CREATE TABLE definition_pins (
  server TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, definition TEXT NOT NULL,
  pinned_at_ms BIGINT NOT NULL, pinned_by TEXT NOT NULL, PRIMARY KEY (server, tool));
CREATE TABLE definition_changes (
  server TEXT NOT NULL, tool TEXT NOT NULL, old_hash TEXT NOT NULL, new_hash TEXT NOT NULL,
  decision_id TEXT NOT NULL, asked_at_ms BIGINT NOT NULL,
  PRIMARY KEY (server, tool, old_hash, new_hash));
ALTER TABLE pending_decisions DROP CONSTRAINT pending_decisions_kind_check;
ALTER TABLE pending_decisions ADD CONSTRAINT pending_decisions_kind_check
  CHECK (kind IN ('approval','question','definition_change'));
)sql";
// ---- end of version 8 ----

// ---- version 9: per-user secrets of foreign MCP servers, sealed (as SQLite's version 10).
constexpr const char* user_secret_tables = R"sql(
CREATE TABLE user_secrets (
  user_id TEXT NOT NULL, name TEXT NOT NULL, key_id TEXT NOT NULL, nonce TEXT NOT NULL,
  sealed TEXT NOT NULL, updated_at_ms BIGINT NOT NULL, updated_by TEXT NOT NULL,
  PRIMARY KEY (user_id, name));
)sql";
// ---- end of version 9 ----

struct PostgresMigration {
    SchemaMigration info;
    const char* sql;
};

constexpr PostgresMigration migrations[] = {
    {{1, "approvals, api_tokens, user_modes, runs, run_events, guidance, playbooks, audit_records"},
     shared_state_tables},
    {{2, "run_leases, mcp_sessions"}, multi_instance_tables},
    {{3, "elicitations"}, elicitation_tables},
    {{4, "idempotency_keys"}, idempotency_tables},
    {{5, "audit_records.record_id"}, audit_record_ids},
    {{6, "plugin_records, plugin_data_usage, plugin_sequences"}, plugin_data_tables},
    {{7, "pending_decisions (approvals and elicitations, one table)"}, pending_decision_table},
    {{8, "definition_pins, definition_changes; pending_decisions.kind definition_change"}, definition_pin_tables},
    {{9, "user_secrets"}, user_secret_tables},
};

// Any constant both sides agree on; it names "skillhost schema migration" among advisory locks.
constexpr const char* migration_lock = "SELECT pg_advisory_xact_lock(7310512831652737101)";

Result<int> read_version(PgConnection& connection) {
    auto exists = connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL");
    if (!exists) return exists.error();
    if (exists->text(0, 0) != "t") return 0;
    auto version = connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    if (!version) return version.error();
    return static_cast<int>(version->integer(0, 0));
}

SchemaStatus status_at(const PgConnection& connection, int current) {
    return schema_status_at("postgres", connection.target(), current, migrations);
}

}  // namespace

int latest_postgres_schema_version() {
    return std::end(migrations)[-1].info.version;
}

Result<SchemaStatus> check_postgres_schema(PgConnection& connection) {
    auto version = read_version(connection);
    if (!version) return version.error();
    return status_at(connection, *version);
}

Result<SchemaStatus> migrate_postgres_schema(PgConnection& connection, int up_to) {
    auto before = check_postgres_schema(connection);
    if (!before) return before.error();
    if (before->current > before->latest) return schema_too_new_error(*before);
    const int target = up_to > 0 && up_to < before->latest ? up_to : before->latest;
    if (before->current >= target) return before;
    PgTransaction transaction(connection);
    if (!transaction.begun()) return transaction.begun().error();
    if (auto st = connection.exec(migration_lock); !st) return st.error();
    if (auto st =
            connection.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                            " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_ms BIGINT NOT NULL)");
        !st)
        return st.error();
    // Another instance may have migrated while this one waited for the lock.
    auto locked = check_postgres_schema(connection);
    if (!locked) return locked.error();
    if (locked->current > locked->latest) return schema_too_new_error(*locked);
    const auto now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (const auto& migration : migrations) {
        if (migration.info.version <= locked->current || migration.info.version > target) continue;
        if (auto st = connection.exec(migration.sql); !st) return st.error();
        auto recorded = connection.query(
            "INSERT INTO schema_migrations(version, description, applied_ms) VALUES($1, $2, $3)",
            {std::to_string(migration.info.version), std::string(migration.info.description), std::to_string(now_ms)});
        if (!recorded) return recorded.error();
    }
    if (auto st = transaction.commit(); !st) return st.error();
    return status_at(connection, std::max(locked->current, target));
}

Result<PgConnection> open_migrated_postgres(const std::string& url) {
    auto connection = PgConnection::open(url);
    if (!connection) return connection.error();
    if (auto st = migrate_postgres_schema(*connection); !st) return st.error();
    return connection;
}

}  // namespace skillhost::db
