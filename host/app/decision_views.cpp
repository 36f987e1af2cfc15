#include "app/decision_views.hpp"
#include "app/host_parts.hpp"

namespace skillhost::app {
namespace {

// The queue that keeps `Record`'s kind.
decisions::ApprovalQueue& queue_for(HostRuntime& host, const decisions::ApprovalRecord*) {
    return *parts_of(host).approvals;
}
decisions::ElicitationQueue& queue_for(HostRuntime& host, const decisions::ElicitationRecord*) {
    return *parts_of(host).elicitations;
}
decisions::DefinitionChangeQueue& queue_for(HostRuntime& host, const decisions::DefinitionChangeRecord*) {
    return *parts_of(host).definition_changes;
}

}  // namespace

template <class Record>
Result<Record> visible_decision(HostRuntime& host, const auth::UserContext& user, std::string_view id) {
    return queue_for(host, static_cast<const Record*>(nullptr)).get_visible(id, host.resolver(user));
}

template <class Record, class State>
Result<std::vector<Record>> list_decisions(HostRuntime& host, const auth::UserContext& user,
                                           const decisions::StateFilter<State>& filter) {
    return queue_for(host, static_cast<const Record*>(nullptr)).list_visible(filter, host.resolver(user));
}

template Result<decisions::ApprovalRecord> visible_decision(HostRuntime&, const auth::UserContext&, std::string_view);
template Result<decisions::ElicitationRecord> visible_decision(HostRuntime&, const auth::UserContext&,
                                                               std::string_view);
template Result<std::vector<decisions::ApprovalRecord>> list_decisions(HostRuntime&, const auth::UserContext&,
                                                                       const decisions::ApprovalFilter&);
template Result<std::vector<decisions::ElicitationRecord>> list_decisions(HostRuntime&, const auth::UserContext&,
                                                                          const decisions::ElicitationFilter&);
template Result<decisions::DefinitionChangeRecord> visible_decision(HostRuntime&, const auth::UserContext&,
                                                                    std::string_view);
template Result<std::vector<decisions::DefinitionChangeRecord>> list_decisions(
    HostRuntime&, const auth::UserContext&, const decisions::DefinitionChangeFilter&);

}  // namespace skillhost::app
