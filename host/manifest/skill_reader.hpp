// Internal to manifest/: reading one entry of a manifest's `skills` list.
#pragma once

#include "manifest/skill_spec.hpp"
#include "manifest/yaml_field.hpp"

#include <optional>

namespace skillhost::manifest::detail {

// Reads and checks one skill, reporting every problem. nullopt when the entry is not a mapping;
// otherwise a skill with whatever could be read (the caller discards it if problems were found).
std::optional<SkillSpec> read_skill(const Field& field, ProblemList& problems);

}  // namespace skillhost::manifest::detail
