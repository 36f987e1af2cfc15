#include "decisions/approval_queue.hpp"
#include "decisions/error_codes.hpp"

#include "audit/audit_log.hpp"
#include "audit/audit_redaction.hpp"
#include "decisions/process_identity.hpp"
#include "decisions/stored_row.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace skillhost::decisions {

namespace {

constexpr const char* select_columns =
    "SELECT id, user_id, skill_id, arguments, requested_at_ms, requested_by, preview, expires_at_ms, state,"
    " resolved_by, resolved_at_ms, completed_at_ms, reason, result, requested_token FROM approvals";

ApprovalRecord row_to_record(const db::SqlRows& rows, std::size_t row) {
    ApprovalRecord record;
    record.id = rows.text(row, 0);
    record.user_id = rows.text(row, 1);
    record.skill_id = rows.text(row, 2);
    record.arguments = parse_stored_json(rows.text(row, 3));
    record.requested_at = from_ms(rows.integer(row, 4));
    record.requested_by = auth::Requester::from_text(rows.text(row, 5));
    record.preview = rows.text(row, 6);
    record.expires_at = from_ms(rows.integer(row, 7));
    record.state = parse_approval_state(rows.text(row, 8)).value_or(ApprovalState::failed);
    record.resolved_by = rows.text(row, 9);
    if (!rows.is_null(row, 10)) record.resolved_at = from_ms(rows.integer(row, 10));
    if (!rows.is_null(row, 11)) record.completed_at = from_ms(rows.integer(row, 11));
    record.reason = rows.text(row, 12);
    record.result = parse_stored_json(rows.text(row, 13));
    record.requested_token = rows.text(row, 14);
    return record;
}

Error not_found(std::string_view id) {
    Error error{errors::kApprovalNotFound,
                "no approval `" + std::string(id) + "`; list them with `skillhost approvals list --all`",
                {},
                {}};
    error.details["approval_id"] = std::string(id);
    return error;
}

Error already_resolved(const ApprovalRecord& record) {
    std::string how = std::string("is already ") + to_string(record.state);
    if (!record.resolved_by.empty()) how += " (resolved by " + record.resolved_by + ")";
    Error error{errors::kApprovalAlreadyResolved,
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
    return resolver.role == auth::Role::owner || resolver.user_id == record.user_id;
}

Error not_allowed(const Resolver& resolver, const ApprovalRecord& record) {
    Error error{errors::kNotAllowedToResolve,
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
    if (!resolver.credential.may(auth::Scope::approve)) {
        Error e = auth::missing_scope_error(auth::Scope::approve, approving ? "approving a call" : "rejecting a call",
                                            resolver.credential);
        e.details["approval_id"] = record.id;
        return e;
    }
    // An admin token is the owner's own full authority (the console's sign-in); any other token
    // that asked for a call is the agent the approval exists to check.
    if (approving && !resolver.answers_prompt && resolver.credential.is_token() &&
        !resolver.credential.may(auth::Scope::admin) && resolver.credential.token_id == record.requested_token) {
        Error e{errors::kSelfApproval,
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

ApprovalQueue::ApprovalQueue(std::unique_ptr<db::BackendConnection> connection, ApprovalQueueOptions options)
    : connection_(std::move(connection)), options_(std::move(options)) {}

Result<std::unique_ptr<ApprovalQueue>> ApprovalQueue::open(const std::filesystem::path& database_file,
                                                           ApprovalQueueOptions options) {
    return open(db::StorageLocation::sqlite(database_file), std::move(options));
}

Result<std::unique_ptr<ApprovalQueue>> ApprovalQueue::open(const db::StorageLocation& location,
                                                           ApprovalQueueOptions options) {
    auto connection = db::BackendConnection::open(location);
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

// The audit keeps the call's arguments only as their digest.
void ApprovalQueue::audit(const ApprovalRecord& record, std::string_view transition, std::string_view actor) const {
    if (options_.audit == nullptr) return;
    boost::json::object fields;
    fields["user"] = record.user_id;
    fields["skill"] = record.skill_id;
    fields["approval_id"] = record.id;
    fields["transition"] = transition;
    fields["state"] = to_string(record.state);
    fields["actor"] = actor;
    fields["requested_by"] = record.requested_by.to_text();
    fields["args_sha256"] = audit::argument_digest(record.arguments);
    if (!record.reason.empty()) fields["reason"] = record.reason;
    if (auto st = options_.audit->append("approval", std::move(fields)); !st) {
        spdlog::warn("could not audit approval {} ({}): {}", record.id, transition, st.error().message);
    }
}

Result<ApprovalRecord> ApprovalQueue::get(std::string_view id) const {
    record_unrecorded_outcomes();
    return read(id);
}

Result<ApprovalRecord> ApprovalQueue::read(std::string_view id) const {
    auto rows =
        connection_->run("reading an approval", std::string(select_columns) + " WHERE id = ?", {std::string(id)});
    if (!rows) return rows.error();
    if (rows->size() == 0) return not_found(id);
    return row_to_record(*rows, 0);
}

Result<ApprovalRecord> ApprovalQueue::enqueue(const ApprovalRequest& request) {
    ApprovalRecord record;
    record.id = new_record_id("apr-");
    record.user_id = request.user_id;
    record.skill_id = request.skill_id;
    record.arguments = request.arguments;
    record.requested_by = request.requested_by;
    record.preview = request.preview.empty() ? request.skill_id : request.preview;
    record.requested_token = request.requested_token;
    record.requested_at = now();
    record.expires_at = record.requested_at + options_.ttl;
    auto inserted = connection_->run(
        "queueing an approval",
        "INSERT INTO approvals (id, user_id, skill_id, arguments, requested_at_ms, requested_by,"
        " preview, expires_at_ms, state, requested_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
        {record.id, record.user_id, record.skill_id, boost::json::serialize(record.arguments),
         to_ms(record.requested_at), record.requested_by.to_text(), record.preview, to_ms(record.expires_at),
         text_or_null(record.requested_token)});
    if (!inserted) return inserted.error();
    audit(record, "requested", record.user_id);
    return record;
}

Result<std::vector<ApprovalRecord>> ApprovalQueue::list(const ApprovalFilter& filter) const {
    record_unrecorded_outcomes();
    std::vector<std::string> states;
    for (const auto state : filter.states) states.emplace_back(to_string(state));
    std::vector<db::SqlValue> params;
    const std::string sql = listing_sql(select_columns, filter.user_id, states, filter.limit, params);
    auto rows = connection_->run("listing approvals", sql, params);
    if (!rows) return rows.error();
    std::vector<ApprovalRecord> out;
    out.reserve(rows->size());
    for (std::size_t row = 0; row < rows->size(); ++row) out.push_back(row_to_record(*rows, row));
    return out;
}

Error ApprovalQueue::lost_race(std::string_view id) const {
    auto now_stored = get(id);
    if (!now_stored) return now_stored.error();
    return already_resolved(*now_stored);
}

Error ApprovalQueue::expire_now(ApprovalRecord& record, TimePoint at, std::string_view actor) {
    const std::string reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone resolved it";
    auto expired = connection_->run("expiring an approval",
                                    "UPDATE approvals SET state = 'expired', resolved_at_ms = ?, reason = ? "
                                    "WHERE id = ? AND state = 'pending'",
                                    {to_ms(at), reason, record.id});
    if (!expired) return expired.error();
    // Someone resolved it between our read and this update: theirs is the answer.
    if (expired->affected != 1) return lost_race(record.id);
    record.state = ApprovalState::expired;
    record.resolved_at = at;
    record.reason = reason;
    audit(record, "expired", actor);
    Error error{errors::kApprovalExpired,
                "approval " + record.id + " expired at " + format_utc_timestamp(record.expires_at) +
                    " and will not run; repeat the original call to request a new approval",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["expires_at"] = format_utc_timestamp(record.expires_at);
    error.details["state"] = "expired";
    return error;
}

// Every transition below is a read, the rule checks, then one compare-and-set UPDATE (`WHERE
// state = <what we read>`) committed on its own: of several racers (threads, processes, instances
// on one PostgreSQL database) exactly one changes the row, the others re-read it and are told who
// won. No transaction is open while the caller then executes the skill.
Result<ApprovalRecord> ApprovalQueue::claim_for_execution(std::string_view id, const Resolver& resolver) {
    auto record = get(id);
    if (!record) return record.error();
    if (!may_resolve(resolver, *record)) return not_allowed(resolver, *record);
    if (options_.require_approver) {
        if (auto problem = approver_problem(resolver, *record, true)) return *problem;
    }
    if (record->state != ApprovalState::pending) return already_resolved(*record);
    const TimePoint at = now();
    if (at >= record->expires_at) return expire_now(*record, at, resolver.user_id);
    const ProcessIdentity self = current_process_identity();
    auto claimed =
        connection_->run("claiming an approval",
                         "UPDATE approvals SET state = 'approved', resolved_by = ?, resolved_at_ms = ?,"
                         " claim_host = ?, claim_pid = ?, claim_start_ticks = ? WHERE id = ? AND state = 'pending'",
                         {resolver.user_id, to_ms(at), self.host, self.pid, self.start_ticks, std::string(id)});
    if (!claimed) return claimed.error();
    if (claimed->affected != 1) return lost_race(id);
    record->state = ApprovalState::approved;
    record->resolved_by = resolver.user_id;
    record->resolved_at = at;
    audit(*record, "approved", resolver.user_id);
    return record;
}

Result<ApprovalRecord> ApprovalQueue::complete(std::string_view id, bool ok, const boost::json::value& result,
                                               std::string_view reason) {
    record_unrecorded_outcomes();
    auto stored = store_outcome(id, ok, result, reason);
    if (!stored && !stored.error().is(errors::kApprovalNotClaimed) && !stored.error().is(errors::kApprovalNotFound)) {
        // The call ran (or was refused) and nothing may forget that: kept until storage returns.
        std::lock_guard lock(unrecorded_mutex_);
        if (unrecorded_.size() >= max_unrecorded_outcomes) {
            spdlog::error(
                "approval {}: too many outcomes wait for storage; the oldest ({}) stays approved until "
                "the next start marks it interrupted",
                id, unrecorded_.front().id);
            unrecorded_.pop_front();
        }
        unrecorded_.push_back(UnrecordedOutcome{std::string(id), ok, result, std::string(reason)});
        spdlog::warn(
            "approval {}: its outcome ({}) could not be stored ({}); it is stored as soon as the database "
            "takes writes again",
            id, ok ? "executed" : "failed", stored.error().message);
    }
    return stored;
}

std::size_t ApprovalQueue::record_unrecorded_outcomes() const {
    std::unique_lock lock(unrecorded_mutex_);
    while (!unrecorded_.empty()) {
        UnrecordedOutcome next = unrecorded_.front();
        lock.unlock();
        auto stored = store_outcome(next.id, next.ok, next.result, next.reason);
        lock.lock();
        if (!stored && !stored.error().is(errors::kApprovalNotClaimed) && !stored.error().is(errors::kApprovalNotFound))
            break;  // storage still refuses: the rest waits too
        if (stored) spdlog::info("approval {}: its outcome ({}) is stored now", next.id, to_string(stored->state));
        // Another thread may have stored and removed it meanwhile.
        if (!unrecorded_.empty() && unrecorded_.front().id == next.id) unrecorded_.pop_front();
    }
    return unrecorded_.size();
}

Result<ApprovalRecord> ApprovalQueue::store_outcome(std::string_view id, bool ok, const boost::json::value& result,
                                                    std::string_view reason) const {
    auto record = read(id);
    if (!record) return record.error();
    const auto not_claimed = [](const ApprovalRecord& stored) {
        Error error{errors::kApprovalNotClaimed,
                    "approval " + stored.id + " is " + to_string(stored.state) +
                        ", not approved, so its outcome cannot be recorded; see `skillhost approvals show " +
                        stored.id + "`",
                    {},
                    {}};
        error.details["approval_id"] = stored.id;
        error.details["state"] = to_string(stored.state);
        return error;
    };
    if (record->state != ApprovalState::approved) return not_claimed(*record);
    const TimePoint at = now();
    const ApprovalState state = ok ? ApprovalState::executed : ApprovalState::failed;
    auto updated = connection_->run("recording an approval's outcome",
                                    "UPDATE approvals SET state = ?, completed_at_ms = ?, result = ?, reason = ? "
                                    "WHERE id = ? AND state = 'approved'",
                                    {std::string(to_string(state)), to_ms(at), boost::json::serialize(result),
                                     text_or_null(reason), std::string(id)});
    if (!updated) return updated.error();
    if (updated->affected != 1) {
        auto now_stored = read(id);
        if (!now_stored) return now_stored.error();
        return not_claimed(*now_stored);
    }
    record->state = state;
    record->completed_at = at;
    record->result = result;
    record->reason = std::string(reason);
    audit(*record, to_string(state), record->resolved_by);
    return record;
}

Result<ApprovalRecord> ApprovalQueue::reject(std::string_view id, const Resolver& resolver, std::string_view reason) {
    auto record = get(id);
    if (!record) return record.error();
    if (!may_resolve(resolver, *record)) return not_allowed(resolver, *record);
    if (options_.require_approver) {
        if (auto problem = approver_problem(resolver, *record, false)) return *problem;
    }
    if (record->state != ApprovalState::pending) return already_resolved(*record);
    const TimePoint at = now();
    if (at >= record->expires_at) return expire_now(*record, at, resolver.user_id);
    auto updated = connection_->run("rejecting an approval",
                                    "UPDATE approvals SET state = 'rejected', resolved_by = ?, resolved_at_ms = ?,"
                                    " reason = ? WHERE id = ? AND state = 'pending'",
                                    {resolver.user_id, to_ms(at), std::string(reason), std::string(id)});
    if (!updated) return updated.error();
    if (updated->affected != 1) return lost_race(id);
    record->state = ApprovalState::rejected;
    record->resolved_by = resolver.user_id;
    record->resolved_at = at;
    record->reason = std::string(reason);
    audit(*record, "rejected", resolver.user_id);
    return record;
}

Result<std::vector<std::string>> ApprovalQueue::expire_due(TimePoint at) {
    auto due = connection_->run(
        "finding expired approvals",
        std::string(select_columns) + " WHERE state = 'pending' AND expires_at_ms <= ? ORDER BY expires_at_ms",
        {to_ms(at)});
    if (!due) return due.error();
    std::vector<std::string> ids;
    for (std::size_t row = 0; row < due->size(); ++row) {
        auto record = row_to_record(*due, row);
        record.reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone resolved it";
        auto updated = connection_->run("expiring approvals",
                                        "UPDATE approvals SET state = 'expired', resolved_at_ms = ?, reason = ? "
                                        "WHERE id = ? AND state = 'pending'",
                                        {to_ms(at), record.reason, record.id});
        if (!updated) return updated.error();
        if (updated->affected != 1) continue;  // resolved, or expired by another instance, meanwhile
        record.state = ApprovalState::expired;
        record.resolved_at = at;
        audit(record, "expired", "host");
        ids.push_back(record.id);
    }
    return ids;
}

Result<std::vector<std::string>> ApprovalQueue::recover_interrupted() {
    return recover_interrupted(process_is_alive);
}

Result<std::vector<std::string>> ApprovalQueue::recover_interrupted(
    const std::function<bool(const ProcessIdentity& claimer)>& claimer_alive) {
    auto claimed = connection_->run("finding interrupted approvals",
                                    "SELECT id, claim_host, claim_pid, claim_start_ticks FROM approvals"
                                    " WHERE state = 'approved'",
                                    {});
    if (!claimed) return claimed.error();
    const TimePoint at = now();
    std::vector<std::string> recovered;
    for (std::size_t row = 0; row < claimed->size(); ++row) {
        const ProcessIdentity claimer{claimed->text(row, 1), claimed->integer(row, 2), claimed->integer(row, 3)};
        if (claimer_alive(claimer)) continue;
        const std::string id = claimed->text(row, 0);
        auto updated = connection_->run("marking interrupted approvals",
                                        "UPDATE approvals SET state = 'failed', completed_at_ms = ?, reason = ? "
                                        "WHERE id = ? AND state = 'approved'",
                                        {to_ms(at), std::string(interrupted_reason), id});
        if (!updated) return updated.error();
        if (updated->affected != 1) continue;  // it completed meanwhile
        recovered.push_back(id);
        if (auto record = get(id)) audit(*record, "interrupted", "host");
    }
    return recovered;
}

}  // namespace skillhost::decisions
