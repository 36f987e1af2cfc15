// Where the definitions of foreign MCP servers' tools are pinned (issue 37, "Pinned definitions"),
// as the plugin layer needs it: a server's first listing pins every tool; later a tool whose
// definition differs from its pin, a new tool, or changed server instructions wait for a person's
// `definition_change` decision before they can be called. The host implements it over its database
// (app/definition_pin_store.hpp), so pins outlive a restart; MemoryDefinitionPins keeps them for one
// process only (`plugin check`, tests).
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::plugin {

// The tool name a server's `instructions` are pinned under (no tool may have an empty name).
inline constexpr std::string_view kInstructionsPin = "";

// One definition as a server listed it.
struct ListedDefinition {
    std::string tool;                // the upstream tool's name; kInstructionsPin for the server's instructions
    std::string hash;                // upstream::definition_hash / instructions_hash
    boost::json::object definition;  // what the hash is of: upstream::definition_json, or {"instructions"}
};

// Whether a listed definition may be called, and if not, which decision it waits on.
struct PinVerdict {
    std::string tool;
    bool callable = false;       // the listed hash is the pinned one (or the server's first listing)
    std::string pinned_hash;     // empty: never pinned (a tool the server added)
    std::string decision_id;     // not callable: the definition_change decision it waits on (may be empty)
    std::string decision_state;  // "pending", "rejected", ...
    std::string review;          // how a person reviews it: "see `skillhost definition_changes show ID`"
};

class DefinitionPins {
public:
    virtual ~DefinitionPins() = default;
    // The verdict on each of `listed` (in its order) for server `server`: when the server has no pin
    // at all, every one is pinned and callable; otherwise a definition whose hash is not its pin's
    // gets the one decision open for (server, tool, that hash), asked for when there is none.
    // `user_id`: whose instance listed them ("" when the declaration was loaded). Thread-safe; pins
    // may be shared by several processes.
    virtual Result<std::vector<PinVerdict>> check(std::string_view server, const std::vector<ListedDefinition>& listed,
                                                  std::string_view user_id) = 0;
};

// Pins kept in memory for the life of this object: the first listing is pinned, and a change is
// refused with no decision to approve (`plugin check`, and hosts without a database).
std::shared_ptr<DefinitionPins> memory_definition_pins();

}  // namespace skillhost::plugin
