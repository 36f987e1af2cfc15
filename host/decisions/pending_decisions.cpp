#include "decisions/pending_decisions.hpp"

#include "audit/audit_log.hpp"
#include "decisions/decision_errors.hpp"
#include "decisions/stored_row.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::decisions {

namespace json = boost::json;

namespace {

constexpr const char* select_columns =
    "SELECT id, kind, user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token, request,"
    " expires_at_ms, state, answer, resolved_by, resolved_at_ms, completed_at_ms, reason, result"
    " FROM pending_decisions";

PendingDecision row_to_decision(const db::SqlRows& rows, std::size_t row) {
    PendingDecision record;
    record.id = rows.text(row, 0);
    record.kind = parse_decision_kind(rows.text(row, 1)).value_or(DecisionKind::approval);
    record.user_id = rows.text(row, 2);
    record.skill_id = rows.text(row, 3);
    record.arguments = parse_stored_json(rows.text(row, 4));
    record.requested_at = from_ms(rows.integer(row, 5));
    record.requested_by = auth::Requester::from_text(rows.text(row, 6));
    record.requested_token = rows.text(row, 7);
    if (auto request = parse_stored_json(rows.text(row, 8)); request.is_object()) record.request = request.get_object();
    record.expires_at = from_ms(rows.integer(row, 9));
    // A state the machine does not have (a hand-edited row) reads as failed: nothing runs from it.
    record.state = parse_decision_state(rows.text(row, 10)).value_or(DecisionState::failed);
    record.answer = parse_stored_json(rows.text(row, 11));
    record.resolved_by = rows.text(row, 12);
    if (!rows.is_null(row, 13)) record.resolved_at = from_ms(rows.integer(row, 13));
    if (!rows.is_null(row, 14)) record.completed_at = from_ms(rows.integer(row, 14));
    record.reason = rows.text(row, 15);
    record.result = parse_stored_json(rows.text(row, 16));
    return record;
}

std::vector<PendingDecision> rows_to_decisions(const db::SqlRows& rows) {
    std::vector<PendingDecision> out;
    out.reserve(rows.size());
    for (std::size_t row = 0; row < rows.size(); ++row) out.push_back(row_to_decision(rows, row));
    return out;
}

// The outcome could not be stored because the database refused the write (not because the
// decision is gone or no longer claimed): worth keeping until it takes writes again.
bool storage_refused(const Error& error) {
    return error.kind() != ErrorKind::conflict && error.kind() != ErrorKind::not_found;
}

std::string json_or_null_text(const json::value& value) {
    return value.is_null() ? std::string() : json::serialize(value);
}

}  // namespace

PendingDecisions::PendingDecisions(std::unique_ptr<db::BackendConnection> connection, const DecisionKindRules& rules,
                                   PendingDecisionsOptions options)
    : connection_(std::move(connection)), rules_(rules), options_(std::move(options)) {}

TimePoint PendingDecisions::now() const {
    return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

void PendingDecisions::audit(const PendingDecision& record, std::string_view transition, std::string_view actor) const {
    if (options_.audit == nullptr) return;
    json::object fields;
    fields["user"] = record.user_id;
    fields["skill"] = record.skill_id;
    fields[std::string(rules_.noun) + "_id"] = record.id;
    fields["transition"] = transition;
    fields["state"] = rules_.state_word(record.state);
    fields["actor"] = actor;
    fields["requested_by"] = record.requested_by.to_text();
    rules_.audit_fields(record, fields);
    if (!record.reason.empty()) fields["reason"] = record.reason;
    if (auto st = options_.audit->append(rules_.noun, std::move(fields)); !st)
        spdlog::warn("could not audit {} {} ({}): {}", rules_.noun, record.id, transition, st.error().message);
}

Result<PendingDecision> PendingDecisions::add(PendingDecision draft) {
    draft.id = new_record_id(rules_.id_prefix);
    draft.kind = rules_.kind;
    draft.requested_at = now();
    draft.expires_at = draft.requested_at + options_.ttl;
    draft.state = DecisionState::pending;
    auto inserted = connection_->run(
        "queueing a pending decision",
        "INSERT INTO pending_decisions (id, kind, user_id, skill_id, arguments, requested_at_ms, requested_by,"
        " requested_token, request, expires_at_ms, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
        {draft.id, std::string(to_string(draft.kind)), draft.user_id, draft.skill_id, json::serialize(draft.arguments),
         to_ms(draft.requested_at), draft.requested_by.to_text(), text_or_null(draft.requested_token),
         json::serialize(draft.request), to_ms(draft.expires_at)});
    if (!inserted) return inserted.error();
    audit(draft, rules_.requested, draft.user_id);
    return draft;
}

Result<std::int64_t> PendingDecisions::count_pending(std::string_view user_id) const {
    auto counted =
        connection_->run("counting pending decisions",
                         "SELECT COUNT(*) FROM pending_decisions WHERE kind = ? AND user_id = ? AND state = 'pending'",
                         {std::string(to_string(rules_.kind)), std::string(user_id)});
    if (!counted) return counted.error();
    return counted->size() > 0 ? counted->integer(0, 0) : 0;
}

Result<PendingDecision> PendingDecisions::get(std::string_view id) const {
    record_unrecorded_outcomes();
    return read(id);
}

Result<PendingDecision> PendingDecisions::read(std::string_view id) const {
    auto rows =
        connection_->run("reading a pending decision", std::string(select_columns) + " WHERE id = ? AND kind = ?",
                         {std::string(id), std::string(to_string(rules_.kind))});
    if (!rows) return rows.error();
    if (rows->size() == 0) return decision_not_found(rules_, id);
    return row_to_decision(*rows, 0);
}

Result<std::vector<PendingDecision>> PendingDecisions::list(const DecisionFilter& filter) const {
    record_unrecorded_outcomes();
    std::vector<std::string> states;
    for (const auto state : filter.states) states.emplace_back(to_string(state));
    std::vector<db::SqlValue> params{std::string(to_string(rules_.kind))};
    const std::string sql =
        listing_sql(std::string(select_columns) + " WHERE kind = ?", filter.user_id, states, filter.limit, params);
    auto rows = connection_->run("listing pending decisions", sql, params);
    if (!rows) return rows.error();
    return rows_to_decisions(*rows);
}

Result<PendingDecision> PendingDecisions::get_visible(std::string_view id, std::string_view viewer,
                                                      bool viewer_is_owner) {
    (void)expire_due(now());
    auto record = get(id);
    if (record && !viewer_is_owner && record->user_id != viewer) return decision_not_found(rules_, id);
    return record;
}

Result<std::vector<PendingDecision>> PendingDecisions::list_visible(DecisionFilter filter, std::string_view viewer,
                                                                    bool viewer_is_owner) {
    (void)expire_due(now());
    if (!viewer_is_owner) filter.user_id = std::string(viewer);
    return list(filter);
}

Error PendingDecisions::lost_race(std::string_view id) const {
    auto now_stored = read(id);
    if (!now_stored) return now_stored.error();
    return decision_already_decided(rules_, *now_stored);
}

std::optional<Error> PendingDecisions::closed(PendingDecision& record, std::string_view actor) {
    if (record.state != DecisionState::pending) return decision_already_decided(rules_, record);
    const TimePoint at = now();
    if (at < record.expires_at) return std::nullopt;
    const std::string reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone " +
                               std::string(rules_.unresolved) + " it";
    auto expired = connection_->run("expiring a pending decision",
                                    "UPDATE pending_decisions SET state = 'expired', resolved_at_ms = ?, reason = ? "
                                    "WHERE id = ? AND state = 'pending'",
                                    {to_ms(at), reason, record.id});
    if (!expired) return expired.error();
    // Someone decided it between our read and this update: theirs is the answer.
    if (expired->affected != 1) return lost_race(record.id);
    record.state = DecisionState::expired;
    record.resolved_at = at;
    record.reason = reason;
    audit(record, "expired", actor);
    return decision_expired(rules_, record);
}

Result<PendingDecision> PendingDecisions::claim(PendingDecision record, std::string_view actor, json::value answer) {
    const TimePoint at = now();
    const ProcessIdentity self = current_process_identity();
    auto claimed = connection_->run(
        "claiming a pending decision",
        "UPDATE pending_decisions SET state = 'claimed', answer = ?, resolved_by = ?, resolved_at_ms = ?,"
        " claim_host = ?, claim_pid = ?, claim_start_ticks = ? WHERE id = ? AND state = 'pending'",
        {text_or_null(json_or_null_text(answer)), std::string(actor), to_ms(at), self.host, self.pid, self.start_ticks,
         record.id});
    if (!claimed) return claimed.error();
    if (claimed->affected != 1) return lost_race(record.id);
    record.state = DecisionState::claimed;
    record.answer = std::move(answer);
    record.resolved_by = std::string(actor);
    record.resolved_at = at;
    audit(record, rules_.state_word(DecisionState::claimed), actor);
    return record;
}

Result<PendingDecision> PendingDecisions::reject(PendingDecision record, std::string_view actor,
                                                 std::string_view reason) {
    const TimePoint at = now();
    auto updated =
        connection_->run("rejecting a pending decision",
                         "UPDATE pending_decisions SET state = 'rejected', resolved_by = ?, resolved_at_ms = ?,"
                         " reason = ? WHERE id = ? AND state = 'pending'",
                         {std::string(actor), to_ms(at), std::string(reason), record.id});
    if (!updated) return updated.error();
    if (updated->affected != 1) return lost_race(record.id);
    record.state = DecisionState::rejected;
    record.resolved_by = std::string(actor);
    record.resolved_at = at;
    record.reason = std::string(reason);
    audit(record, "rejected", actor);
    return record;
}

Result<PendingDecision> PendingDecisions::complete(std::string_view id, bool ok, const json::value& result,
                                                   std::string_view reason) {
    record_unrecorded_outcomes();
    auto stored = store_outcome(id, ok, result, reason);
    if (!stored && storage_refused(stored.error())) {
        // The call ran (or was refused) and nothing may forget that: kept until storage returns.
        std::lock_guard lock(unrecorded_mutex_);
        if (unrecorded_.size() >= max_unrecorded_outcomes) {
            spdlog::error(
                "{} {}: too many outcomes wait for storage; the oldest ({}) stays {} until the next start marks it "
                "interrupted",
                rules_.noun, id, unrecorded_.front().id, rules_.state_word(DecisionState::claimed));
            unrecorded_.pop_front();
        }
        unrecorded_.push_back(UnrecordedOutcome{std::string(id), ok, result, std::string(reason)});
        spdlog::warn(
            "{} {}: its outcome ({}) could not be stored ({}); it is stored as soon as the database takes "
            "writes again",
            rules_.noun, id, rules_.state_word(ok ? DecisionState::succeeded : DecisionState::failed),
            stored.error().message);
    }
    return stored;
}

std::size_t PendingDecisions::record_unrecorded_outcomes() const {
    std::unique_lock lock(unrecorded_mutex_);
    while (!unrecorded_.empty()) {
        UnrecordedOutcome next = unrecorded_.front();
        lock.unlock();
        auto stored = store_outcome(next.id, next.ok, next.result, next.reason);
        lock.lock();
        if (!stored && storage_refused(stored.error())) break;  // storage still refuses: the rest waits too
        if (stored)
            spdlog::info("{} {}: its outcome ({}) is stored now", rules_.noun, next.id,
                         rules_.state_word(stored->state));
        // Another thread may have stored and removed it meanwhile.
        if (!unrecorded_.empty() && unrecorded_.front().id == next.id) unrecorded_.pop_front();
    }
    return unrecorded_.size();
}

Result<PendingDecision> PendingDecisions::store_outcome(std::string_view id, bool ok, const json::value& result,
                                                        std::string_view reason) const {
    auto record = read(id);
    if (!record) return record.error();
    if (record->state != DecisionState::claimed) return decision_not_claimed(rules_, *record);
    const TimePoint at = now();
    const DecisionState state = ok ? DecisionState::succeeded : DecisionState::failed;
    auto updated = connection_->run(
        "recording a decision's outcome",
        "UPDATE pending_decisions SET state = ?, completed_at_ms = ?, result = ?, reason = ? "
        "WHERE id = ? AND state = 'claimed'",
        {std::string(to_string(state)), to_ms(at), json::serialize(result), text_or_null(reason), std::string(id)});
    if (!updated) return updated.error();
    if (updated->affected != 1) {
        auto now_stored = read(id);
        if (!now_stored) return now_stored.error();
        return decision_not_claimed(rules_, *now_stored);
    }
    record->state = state;
    record->completed_at = at;
    record->result = result;
    record->reason = std::string(reason);
    audit(*record, rules_.state_word(state), record->resolved_by);
    return record;
}

Result<std::vector<std::string>> PendingDecisions::expire_due(TimePoint at) {
    auto due =
        connection_->run("finding expired pending decisions",
                         std::string(select_columns) +
                             " WHERE kind = ? AND state = 'pending' AND expires_at_ms <= ? ORDER BY expires_at_ms",
                         {std::string(to_string(rules_.kind)), to_ms(at)});
    if (!due) return due.error();
    std::vector<std::string> ids;
    for (auto& record : rows_to_decisions(*due)) {
        record.reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone " +
                        std::string(rules_.unresolved) + " it";
        auto updated =
            connection_->run("expiring pending decisions",
                             "UPDATE pending_decisions SET state = 'expired', resolved_at_ms = ?, reason = ? "
                             "WHERE id = ? AND state = 'pending'",
                             {to_ms(at), record.reason, record.id});
        if (!updated) return updated.error();
        if (updated->affected != 1) continue;  // decided, or expired by another instance, meanwhile
        record.state = DecisionState::expired;
        record.resolved_at = at;
        audit(record, "expired", "host");
        ids.push_back(record.id);
    }
    return ids;
}

Result<std::vector<std::string>> PendingDecisions::recover_interrupted(
    const std::function<bool(const ProcessIdentity& claimer)>& claimer_alive) {
    auto claimed = connection_->run("finding interrupted decisions",
                                    "SELECT id, claim_host, claim_pid, claim_start_ticks FROM pending_decisions"
                                    " WHERE kind = ? AND state = 'claimed'",
                                    {std::string(to_string(rules_.kind))});
    if (!claimed) return claimed.error();
    const TimePoint at = now();
    std::vector<std::string> recovered;
    for (std::size_t row = 0; row < claimed->size(); ++row) {
        const ProcessIdentity claimer{claimed->text(row, 1), claimed->integer(row, 2), claimed->integer(row, 3)};
        if (claimer_alive(claimer)) continue;
        const std::string id = claimed->text(row, 0);
        auto updated =
            connection_->run("marking interrupted decisions",
                             "UPDATE pending_decisions SET state = 'failed', completed_at_ms = ?, reason = ? "
                             "WHERE id = ? AND state = 'claimed'",
                             {to_ms(at), std::string(rules_.interrupted_reason), id});
        if (!updated) return updated.error();
        if (updated->affected != 1) continue;  // it completed meanwhile
        recovered.push_back(id);
        if (auto record = read(id)) audit(*record, "interrupted", "host");
    }
    return recovered;
}

}  // namespace skillhost::decisions
