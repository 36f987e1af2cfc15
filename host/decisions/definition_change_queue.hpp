// The definition_change decisions among the pending decisions (decisions/pending_decisions): a
// foreign MCP server's tool whose listed definition is not its pin waits here for an owner. The
// pins themselves are kept by whoever asks (app/definition_pin_store.hpp): approving claims the
// decision (pending -> approved), the asker pins the new definition and completes it (-> pinned).
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "decisions/decision_queue.hpp"
#include "decisions/definition_change_record.hpp"
#include "decisions/resolver.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

namespace skillhost::audit {
class AuditLog;
}  // namespace skillhost::audit

namespace skillhost::decisions {

using DefinitionChangeFilter = StateFilter<DefinitionChangeState>;

struct DefinitionChangeQueueOptions {
    std::chrono::milliseconds ttl = std::chrono::hours(24);  // policy.yaml approvals.ttl
    std::function<TimePoint()> clock;                        // tests; empty: the system clock
    audit::AuditLog* audit = nullptr;                        // requested/approved/... records; not owned
};

class DefinitionChangeQueue : public DecisionQueue<DefinitionChangeRecord, DefinitionChangeState> {
public:
    static Result<std::unique_ptr<DefinitionChangeQueue>> open(const db::StorageLocation& location,
                                                               DefinitionChangeQueueOptions options = {});

    // Stores a pending decision for `ask`, with the diff of its definitions, expiring after the TTL.
    Result<DefinitionChangeRecord> request(const DefinitionChangeAsk& ask);

    // pending -> approved by `decider`, who then pins the new definition and calls complete().
    // Errors: DEFINITION_CHANGE_NOT_FOUND; NOT_ALLOWED_TO_PIN (not an owner); MISSING_SCOPE (a token
    // without the approve scope); DEFINITION_CHANGE_EXPIRED; DEFINITION_CHANGE_ALREADY_DECIDED
    // (details.state says how it stands; also the loser of two racing deciders).
    Result<DefinitionChangeRecord> approve(std::string_view id, const Resolver& decider);
    // pending -> rejected: the tool stays refused. The same errors as approve().
    Result<DefinitionChangeRecord> reject(std::string_view id, const Resolver& decider, std::string_view reason);

private:
    DefinitionChangeQueue(std::unique_ptr<db::BackendConnection> connection, DefinitionChangeQueueOptions options);
    std::optional<Error> decider_problem(const Resolver& decider, const PendingDecision& record, bool approving) const;
};

}  // namespace skillhost::decisions
