#include "app/definition_change_actions.hpp"
#include "app/host_parts.hpp"

namespace skillhost::app {

Result<decisions::DefinitionChangeRecord> approve_definition_change(HostRuntime& host, std::string_view id,
                                                                    const auth::UserContext& decider) {
    HostParts& parts = parts_of(host);
    auto claimed = parts.definition_changes->approve(id, host.resolver(decider));
    if (!claimed) return claimed.error();
    if (auto pinned = parts.definition_pins->pin(*claimed, decider.user_id); !pinned) {
        Error error = pinned.error();
        auto failed = parts.definition_changes->complete(claimed->id, false, error.to_json(),
                                                         "not pinned: " + error.code + ": " + error.message);
        if (!failed) return failed.error();
        return error;
    }
    return parts.definition_changes->complete(claimed->id, true, boost::json::object{{"pinned", claimed->new_hash}});
}

Result<decisions::DefinitionChangeRecord> reject_definition_change(HostRuntime& host, std::string_view id,
                                                                   const auth::UserContext& decider,
                                                                   std::string_view reason) {
    return parts_of(host).definition_changes->reject(id, host.resolver(decider), reason);
}

}  // namespace skillhost::app
