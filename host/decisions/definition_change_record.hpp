// A changed definition of a foreign MCP server's tool waiting for (or past) an owner's decision:
// which tool, its pinned and its listed definition with their hashes, and what changed between them.
#pragma once

#include "decisions/decision_kinds.hpp"
#include "decisions/decision_record.hpp"
#include "decisions/pending_decision.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace skillhost::decisions {

// What a definition change is about, as the pins saw it.
struct DefinitionChangeAsk {
    std::string server;                 // the declaration's name
    std::string tool;                   // the upstream tool; "" for the server's instructions
    std::string user_id;                // whose instance listed it; "" when the declaration was loaded
    std::string old_hash;               // the pin's; "" for a tool never pinned
    boost::json::value old_definition;  // the pin's definition; null for a new tool
    std::string new_hash;
    boost::json::object new_definition;
};

struct DefinitionChangeRecord : DecisionRecord {
    std::string server;
    std::string tool;  // "" : the server's instructions
    std::string old_hash;
    std::string new_hash;
    boost::json::value old_definition;
    boost::json::object new_definition;
    boost::json::array diff;  // decisions/definition_diff.hpp
    DefinitionChangeState state = DefinitionChangeState::pending;
    std::string decided_by;               // who approved or rejected it
    std::optional<TimePoint> decided_at;  // when approved, rejected or expired

    // "instructions" or "tool"; and "new tool" when it was never pinned.
    std::string what() const;
    boost::json::object to_json() const;
    // One line for `definition_changes list`: "def-… pending owner files__read  expires … changed tool read".
    std::string summary_line() const;
    // Every field, one per line, and the diff, for `definition_changes show`.
    std::string to_text() const;
};

}  // namespace skillhost::decisions
