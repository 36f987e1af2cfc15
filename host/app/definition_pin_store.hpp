// The pins of foreign MCP servers' tool definitions (plugin/definition_pins.hpp) kept in the host's
// database (`definition_pins`), so a server that comes back changed after a restart is caught, and
// the definition_change decisions (decisions/definition_change_queue.hpp) a changed or new
// definition waits on: one per (server, tool, pinned hash, listed hash), whoever lists it and in
// however many processes (`definition_changes` keeps which one was asked; its key admits one).
#pragma once

#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "decisions/definition_change_queue.hpp"
#include "plugin/definition_pins.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::app {

class DefinitionPinStore final : public plugin::DefinitionPins {
public:
    // On the host's storage backend; `changes` is where the decisions go.
    static Result<std::shared_ptr<DefinitionPinStore>> open(const db::StorageLocation& location,
                                                            std::shared_ptr<decisions::DefinitionChangeQueue> changes);
    DefinitionPinStore(std::unique_ptr<db::BackendConnection> connection,
                       std::shared_ptr<decisions::DefinitionChangeQueue> changes);

    Result<std::vector<plugin::PinVerdict>> check(std::string_view server,
                                                  const std::vector<plugin::ListedDefinition>& listed,
                                                  std::string_view user_id) override;

    // The approved change `record` becomes the pin, if the pin is still the one it was asked
    // against (UPSTREAM_DEFINITION_CHANGED otherwise: another change was approved first).
    Status pin(const decisions::DefinitionChangeRecord& record, std::string_view by);

private:
    struct Pin {
        std::string hash;
        std::string definition;  // JSON
    };
    Result<std::optional<Pin>> read_pin(std::string_view server, std::string_view tool) const;
    Status pin_first_listing(std::string_view server, const std::vector<plugin::ListedDefinition>& listed);
    // The decision `listed` waits on (asked for now when there is none open).
    Result<plugin::PinVerdict> decision_for(std::string_view server, const plugin::ListedDefinition& listed,
                                            const std::optional<Pin>& pin, std::string_view user_id);
    Result<plugin::PinVerdict> ask(std::string_view server, const plugin::ListedDefinition& listed,
                                   const std::optional<Pin>& pin, std::string_view user_id);

    std::unique_ptr<db::BackendConnection> connection_;  // thread-safe
    std::shared_ptr<decisions::DefinitionChangeQueue> changes_;
    std::mutex mutex_;  // one check at a time in this process (other processes: the table's key)
};

}  // namespace skillhost::app
