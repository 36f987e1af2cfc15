#include "policy/approval_queue.hpp"

#include "db/sqlite_schema.hpp"
#include "policy/audit_log.hpp"
#include "policy/process_identity.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <openssl/rand.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <random>

namespace skillhost::policy {

namespace {

constexpr const char* select_columns =
    "SELECT id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms, state,"
    " resolved_by, resolved_at_ms, completed_at_ms, reason, result, requested_token FROM approvals";

std::int64_t to_ms(TimePoint time) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

// A stored time far outside what the clock holds (a hand-edited or foreign database row) is
// clamped, not overflowed: the clock counts nanoseconds, about 292 years either side of 1970.
TimePoint from_ms(std::int64_t ms) {
    constexpr std::int64_t limit =
        std::chrono::duration_cast<std::chrono::milliseconds>(TimePoint::duration::max()).count() - 1;
    return TimePoint(std::chrono::milliseconds(std::clamp<std::int64_t>(ms, -limit, limit)));
}

boost::json::value parse_stored_json(const std::string& text) {
    if (text.empty()) return nullptr;
    boost::system::error_code ec;
    auto value = boost::json::parse(text, ec);
    if (ec) return boost::json::value(text);  // keep what was stored rather than lose it
    return value;
}

ApprovalRecord row_to_record(const db::SqliteStatement& row) {
    ApprovalRecord record;
    record.id = row.text(0);
    record.user_id = row.text(1);
    record.skill_id = row.text(2);
    record.arguments = parse_stored_json(row.text(3));
    record.requested_at = from_ms(row.integer(4));
    record.requested_by = Requester::from_text(row.text(5));
    record.preview = row.text(6);
    record.expires_at = from_ms(row.integer(7));
    record.state = parse_approval_state(row.text(8)).value_or(ApprovalState::failed);
    record.resolved_by = row.text(9);
    if (!row.is_null(10)) record.resolved_at = from_ms(row.integer(10));
    if (!row.is_null(11)) record.completed_at = from_ms(row.integer(11));
    record.reason = row.text(12);
    record.result = parse_stored_json(row.text(13));
    record.requested_token = row.text(14);
    return record;
}

std::string new_approval_id() {
    unsigned char bytes[8];
    if (RAND_bytes(bytes, sizeof bytes) != 1) {
        // The id only needs to be unique, not secret; fall back to the OS's random device.
        std::random_device device;
        for (auto& b : bytes) b = static_cast<unsigned char>(device());
    }
    static constexpr char hex[] = "0123456789abcdef";
    std::string id = "apr-";
    for (unsigned char b : bytes) {
        id.push_back(hex[b >> 4]);
        id.push_back(hex[b & 0x0f]);
    }
    return id;
}

Error not_found(std::string_view id) {
    Error error{"APPROVAL_NOT_FOUND",
                "no approval `" + std::string(id) + "`; list them with `skillhost approvals list --all`",
                {},
                {}};
    error.details["approval_id"] = std::string(id);
    return error;
}

Error already_resolved(const ApprovalRecord& record) {
    std::string how = std::string("is already ") + to_string(record.state);
    if (!record.resolved_by.empty()) how += " (resolved by " + record.resolved_by + ")";
    Error error{"APPROVAL_ALREADY_RESOLVED",
                "approval " + record.id + " " + how +
                    "; only pending approvals can be approved or rejected — see `skillhost approvals show " +
                    record.id + "`",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["state"] = to_string(record.state);
    error.details["resolved_by"] = record.resolved_by;
    return error;
}

bool may_resolve(const Resolver& resolver, const ApprovalRecord& record) {
    return resolver.role == Role::owner || resolver.user_id == record.user_id;
}

Error not_allowed(const Resolver& resolver, const ApprovalRecord& record) {
    Error error{"NOT_ALLOWED_TO_RESOLVE",
                "user " + resolver.user_id + " may not resolve approval " + record.id + ", which " + record.user_id +
                    " requested; only the requesting user or an owner may approve or reject it",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["user"] = resolver.user_id;
    error.details["requested_for"] = record.user_id;
    return error;
}

std::optional<Error> approver_problem(const Resolver& resolver, const ApprovalRecord& record, bool approving) {
    if (!resolver.credential.may(Scope::approve)) {
        Error e = missing_scope_error(Scope::approve, approving ? "approving a call" : "rejecting a call",
                                      resolver.credential);
        e.details["approval_id"] = record.id;
        return e;
    }
    // An admin token is the owner's own full authority (the console's sign-in); any other token
    // that asked for a call is the agent the approval exists to check.
    if (approving && !resolver.answers_prompt && resolver.credential.is_token() &&
        !resolver.credential.may(Scope::admin) && resolver.credential.token_id == record.requested_token) {
        Error e{"SELF_APPROVAL",
                "approval " + record.id + " was requested with token " + record.requested_token +
                    ", and a token without the admin scope cannot approve the calls it asked for",
                {},
                {"approve it with another token that has the approve scope, or at the terminal with `skillhost "
                 "approvals approve " +
                 record.id + "`"}};
        e.details["approval_id"] = record.id;
        e.details["token_id"] = record.requested_token;
        return e;
    }
    return std::nullopt;
}

}  // namespace

ApprovalQueue::ApprovalQueue(db::SqliteConnection connection, ApprovalQueueOptions options)
    : connection_(std::move(connection)), options_(std::move(options)) {}

Result<std::unique_ptr<ApprovalQueue>> ApprovalQueue::open(const std::filesystem::path& database_file,
                                                           ApprovalQueueOptions options) {
    auto connection = db::open_migrated_sqlite(database_file);
    if (!connection) return connection.error();
    std::unique_ptr<ApprovalQueue> queue(new ApprovalQueue(std::move(*connection), std::move(options)));
    auto recovered = queue->recover_interrupted();
    if (!recovered) return recovered.error();
    for (const auto& id : *recovered) {
        spdlog::warn("approval {} was being executed when the host stopped; marked failed (not re-run)", id);
    }
    return queue;
}

TimePoint ApprovalQueue::now() const {
    return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

void ApprovalQueue::audit(const ApprovalRecord& record, std::string_view transition, std::string_view actor) const {
    if (options_.audit == nullptr) return;
    if (auto st = options_.audit->record_approval(record, transition, actor); !st) {
        spdlog::warn("could not audit approval {} ({}): {}", record.id, transition, st.error().message);
    }
}

Result<ApprovalRecord> ApprovalQueue::read(std::string_view id) const {
    db::SqliteStatement select(connection_, std::string(select_columns) + " WHERE id = ?");
    if (!select.prepared()) return connection_.error("reading an approval");
    select.bind(1, id);
    const int rc = select.step();
    if (rc == SQLITE_DONE) return not_found(id);
    if (rc != SQLITE_ROW) return connection_.error("reading an approval");
    return row_to_record(select);
}

Result<ApprovalRecord> ApprovalQueue::enqueue(const ApprovalRequest& request) {
    std::lock_guard lock(mutex_);
    ApprovalRecord record;
    record.id = new_approval_id();
    record.user_id = request.user_id;
    record.skill_id = request.skill_id;
    record.arguments = request.arguments;
    record.requested_by = request.requested_by;
    record.preview = request.preview.empty() ? request.skill_id : request.preview;
    record.requested_token = request.requested_token;
    record.requested_at = now();
    record.expires_at = record.requested_at + options_.ttl;
    db::SqliteStatement insert(connection_,
                               "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by,"
                               " preview, expires_at_ms, state, requested_token)"
                               " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)");
    if (!insert.prepared()) return connection_.error("queueing an approval");
    insert.bind(1, record.id)
        .bind(2, record.user_id)
        .bind(3, record.skill_id)
        .bind(4, boost::json::serialize(record.arguments))
        .bind(5, to_ms(record.requested_at))
        .bind(6, record.requested_by.to_text())
        .bind(7, record.preview)
        .bind(8, to_ms(record.expires_at));
    if (record.requested_token.empty())
        insert.bind_null(9);
    else
        insert.bind(9, record.requested_token);
    if (insert.step() != SQLITE_DONE) return connection_.error("queueing an approval");
    audit(record, "requested", record.user_id);
    return record;
}

Result<ApprovalRecord> ApprovalQueue::get(std::string_view id) const {
    std::lock_guard lock(mutex_);
    return read(id);
}

Result<std::vector<ApprovalRecord>> ApprovalQueue::list(const ApprovalFilter& filter) const {
    std::lock_guard lock(mutex_);
    std::string sql = std::string(select_columns) + " WHERE 1 = 1";
    if (filter.user_id) sql += " AND user_id = ?";
    if (!filter.states.empty()) {
        sql += " AND state IN (";
        for (std::size_t i = 0; i < filter.states.size(); ++i) sql += i == 0 ? "?" : ", ?";
        sql += ")";
    }
    sql += " ORDER BY requested_at_ms DESC, id";
    if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);
    db::SqliteStatement select(connection_, sql);
    if (!select.prepared()) return connection_.error("listing approvals");
    int index = 1;
    if (filter.user_id) select.bind(index++, *filter.user_id);
    for (auto state : filter.states) select.bind(index++, to_string(state));
    std::vector<ApprovalRecord> out;
    int rc = 0;
    while ((rc = select.step()) == SQLITE_ROW) out.push_back(row_to_record(select));
    if (rc != SQLITE_DONE) return connection_.error("listing approvals");
    return out;
}

Error ApprovalQueue::expire_now(db::SqliteTransaction& transaction, ApprovalRecord& record, TimePoint at,
                                std::string_view actor) {
    const std::string reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone resolved it";
    db::SqliteStatement expire(connection_,
                               "UPDATE approvals SET state = 'expired', resolved_at_ms = ?, reason = ? "
                               "WHERE id = ? AND state = 'pending'");
    expire.bind(1, to_ms(at)).bind(2, reason).bind(3, record.id);
    if (expire.step() != SQLITE_DONE) return connection_.error("expiring an approval");
    if (auto st = transaction.commit(); !st) return st.error();
    record.state = ApprovalState::expired;
    record.resolved_at = at;
    record.reason = reason;
    audit(record, "expired", actor);
    Error error{"APPROVAL_EXPIRED",
                "approval " + record.id + " expired at " + format_utc_timestamp(record.expires_at) +
                    " and will not run; repeat the original call to request a new approval",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["expires_at"] = format_utc_timestamp(record.expires_at);
    error.details["state"] = "expired";
    return error;
}

Result<ApprovalRecord> ApprovalQueue::claim_for_execution(std::string_view id, const Resolver& resolver) {
    std::lock_guard lock(mutex_);
    db::SqliteTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun().error();
    auto record = read(id);
    if (!record) return record.error();
    if (!may_resolve(resolver, *record)) return not_allowed(resolver, *record);
    if (options_.require_approver) {
        if (auto problem = approver_problem(resolver, *record, true)) return *problem;
    }
    if (record->state != ApprovalState::pending) return already_resolved(*record);
    const TimePoint at = now();
    if (at >= record->expires_at) return expire_now(transaction, *record, at, resolver.user_id);
    const ProcessIdentity self = current_process_identity();
    db::SqliteStatement claim(
        connection_,
        "UPDATE approvals SET state = 'approved', resolved_by = ?, resolved_at_ms = ?,"
        " claim_host = ?, claim_pid = ?, claim_start_ticks = ? WHERE id = ? AND state = 'pending'");
    claim.bind(1, resolver.user_id)
        .bind(2, to_ms(at))
        .bind(3, self.host)
        .bind(4, self.pid)
        .bind(5, self.start_ticks)
        .bind(6, id);
    if (claim.step() != SQLITE_DONE || sqlite3_changes(connection_.handle()) != 1) {
        return connection_.error("claiming an approval");
    }
    if (auto st = transaction.commit(); !st) return st.error();
    record->state = ApprovalState::approved;
    record->resolved_by = resolver.user_id;
    record->resolved_at = at;
    audit(*record, "approved", resolver.user_id);
    return record;
}

Result<ApprovalRecord> ApprovalQueue::complete(std::string_view id, bool ok, const boost::json::value& result,
                                               std::string_view reason) {
    std::lock_guard lock(mutex_);
    db::SqliteTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun().error();
    auto record = read(id);
    if (!record) return record.error();
    if (record->state != ApprovalState::approved) {
        Error error{"APPROVAL_NOT_CLAIMED",
                    "approval " + record->id + " is " + to_string(record->state) +
                        ", not approved, so its outcome cannot be recorded; see `skillhost approvals show " +
                        record->id + "`",
                    {},
                    {}};
        error.details["approval_id"] = record->id;
        error.details["state"] = to_string(record->state);
        return error;
    }
    const TimePoint at = now();
    const ApprovalState state = ok ? ApprovalState::executed : ApprovalState::failed;
    db::SqliteStatement update(connection_,
                               "UPDATE approvals SET state = ?, completed_at_ms = ?, result = ?, reason = ? "
                               "WHERE id = ? AND state = 'approved'");
    update.bind(1, to_string(state)).bind(2, to_ms(at)).bind(3, boost::json::serialize(result));
    if (reason.empty())
        update.bind_null(4);
    else
        update.bind(4, reason);
    update.bind(5, id);
    if (update.step() != SQLITE_DONE || sqlite3_changes(connection_.handle()) != 1) {
        return connection_.error("recording an approval's outcome");
    }
    if (auto st = transaction.commit(); !st) return st.error();
    record->state = state;
    record->completed_at = at;
    record->result = result;
    record->reason = std::string(reason);
    audit(*record, to_string(state), record->resolved_by);
    return record;
}

Result<ApprovalRecord> ApprovalQueue::reject(std::string_view id, const Resolver& resolver, std::string_view reason) {
    std::lock_guard lock(mutex_);
    db::SqliteTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun().error();
    auto record = read(id);
    if (!record) return record.error();
    if (!may_resolve(resolver, *record)) return not_allowed(resolver, *record);
    if (options_.require_approver) {
        if (auto problem = approver_problem(resolver, *record, false)) return *problem;
    }
    if (record->state != ApprovalState::pending) return already_resolved(*record);
    const TimePoint at = now();
    if (at >= record->expires_at) return expire_now(transaction, *record, at, resolver.user_id);
    db::SqliteStatement update(
        connection_,
        "UPDATE approvals SET state = 'rejected', resolved_by = ?, resolved_at_ms = ?, reason = ? "
        "WHERE id = ? AND state = 'pending'");
    update.bind(1, resolver.user_id).bind(2, to_ms(at)).bind(3, reason).bind(4, id);
    if (update.step() != SQLITE_DONE || sqlite3_changes(connection_.handle()) != 1) {
        return connection_.error("rejecting an approval");
    }
    if (auto st = transaction.commit(); !st) return st.error();
    record->state = ApprovalState::rejected;
    record->resolved_by = resolver.user_id;
    record->resolved_at = at;
    record->reason = std::string(reason);
    audit(*record, "rejected", resolver.user_id);
    return record;
}

Result<std::vector<std::string>> ApprovalQueue::expire_due(TimePoint at) {
    std::lock_guard lock(mutex_);
    db::SqliteTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun().error();
    std::vector<ApprovalRecord> due;
    {
        db::SqliteStatement select(
            connection_,
            std::string(select_columns) + " WHERE state = 'pending' AND expires_at_ms <= ? ORDER BY expires_at_ms");
        select.bind(1, to_ms(at));
        int rc = 0;
        while ((rc = select.step()) == SQLITE_ROW) due.push_back(row_to_record(select));
        if (rc != SQLITE_DONE) return connection_.error("finding expired approvals");
    }
    for (auto& record : due) {
        record.reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone resolved it";
        db::SqliteStatement update(connection_,
                                   "UPDATE approvals SET state = 'expired', resolved_at_ms = ?, reason = ? "
                                   "WHERE id = ? AND state = 'pending'");
        update.bind(1, to_ms(at)).bind(2, record.reason).bind(3, record.id);
        if (update.step() != SQLITE_DONE) return connection_.error("expiring approvals");
        record.state = ApprovalState::expired;
        record.resolved_at = at;
    }
    if (auto st = transaction.commit(); !st) return st.error();
    std::vector<std::string> ids;
    for (const auto& record : due) {
        audit(record, "expired", "host");
        ids.push_back(record.id);
    }
    return ids;
}

Result<std::vector<std::string>> ApprovalQueue::recover_interrupted() {
    std::lock_guard lock(mutex_);
    db::SqliteTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun().error();
    struct Claimed {
        std::string id;
        ProcessIdentity claimer;
    };
    std::vector<Claimed> claimed;
    {
        db::SqliteStatement select(
            connection_, "SELECT id, claim_host, claim_pid, claim_start_ticks FROM approvals WHERE state = 'approved'");
        int rc = 0;
        while ((rc = select.step()) == SQLITE_ROW) {
            claimed.push_back({select.text(0), ProcessIdentity{select.text(1), select.integer(2), select.integer(3)}});
        }
        if (rc != SQLITE_DONE) return connection_.error("finding interrupted approvals");
    }
    const TimePoint at = now();
    std::vector<std::string> recovered;
    for (const auto& entry : claimed) {
        if (process_is_alive(entry.claimer)) continue;
        db::SqliteStatement update(connection_,
                                   "UPDATE approvals SET state = 'failed', completed_at_ms = ?, reason = ? "
                                   "WHERE id = ? AND state = 'approved'");
        update.bind(1, to_ms(at)).bind(2, interrupted_reason).bind(3, entry.id);
        if (update.step() != SQLITE_DONE) return connection_.error("marking interrupted approvals");
        recovered.push_back(entry.id);
    }
    if (auto st = transaction.commit(); !st) return st.error();
    for (const auto& id : recovered) {
        if (auto record = read(id)) audit(*record, "interrupted", "host");
    }
    return recovered;
}

}  // namespace skillhost::policy
