// Internal to manifest/: reading one entry of a manifest's `skills` list.
#pragma once

#include "manifest/foreign_server.hpp"
#include "manifest/skill_spec.hpp"
#include "manifest/yaml_field.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::manifest::detail {

// The fields that say what a skill is and how it behaves, each as far as a mapping gives it: exactly
// what a foreign server's tool override holds (a native skill and a foreign server's defaults read
// them too). `tool`, `path_inputs` and `position` are left to the caller.
using SkillTraits = ToolOverride;

// Reads those of the fields above that `map` holds (title, description, category, risk, cost,
// min_trust, requires_approval, annotations, timeout_ms, concurrency, error_hints), reporting every
// problem; a field that could not be read stays unset.
SkillTraits read_skill_traits(const FieldMap& map, ProblemList& problems);

// Sets the behaviour `traits` gives (risk, cost, min_trust, requires_approval, timeout_ms,
// concurrency) on a SkillSpec or a ToolDefaults, keeping what it does not give.
template <class Target>
void apply_behaviour(const SkillTraits& traits, Target& target) {
    target.risk = traits.risk.value_or(target.risk);
    target.cost = traits.cost.value_or(target.cost);
    target.min_trust = traits.min_trust.value_or(target.min_trust);
    target.requires_approval = traits.requires_approval.value_or(target.requires_approval);
    target.timeout_ms = traits.timeout_ms.value_or(target.timeout_ms);
    target.concurrency = traits.concurrency.value_or(target.concurrency);
}

// A `path_inputs` list: each name read, checked by `check` (a problem's message, or nullopt when the
// name is fine) and listed once.
void read_path_inputs(const Field& field, std::vector<std::string>& path_inputs,
                      const std::function<std::optional<std::string>(const std::string&)>& check,
                      ProblemList& problems);

// Reads and checks one skill, reporting every problem. nullopt when the entry is not a mapping;
// otherwise a skill with whatever could be read (the caller discards it if problems were found).
std::optional<SkillSpec> read_skill(const Field& field, ProblemList& problems);

}  // namespace skillhost::manifest::detail
