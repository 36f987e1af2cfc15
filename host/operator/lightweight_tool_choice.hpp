// The lightweight operator's one call: the read-only skill whose manifest fits the message's intent
// (a list of the user's tasks, a time window of what happened, a free-text search of what they
// keep), chosen by what the manifests declare — read-only, inputs, category and description — never
// by a skill's id, so any plugin's read-only skills take part.
#pragma once

#include "catalog/catalog_snapshot.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace skillhost::op {

struct LightweightCall {
    std::string tool;
    boost::json::object args;
};

struct LightweightRequest {
    std::string intent;  // task | temporal | factual
    std::string query;   // the message's search words
    std::optional<std::string> time_phrase;
    bool wants_completed = false;
};

// The call for `request` among `entries` (the skills the user may see), or none when no read-only
// skill fits the intent.
std::optional<LightweightCall> choose_lightweight_call(const std::vector<const catalog::CatalogEntry*>& entries,
                                                       const LightweightRequest& request);

}  // namespace skillhost::op
