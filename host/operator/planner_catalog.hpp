// The tool catalog as the planner reads it: every skill in a few short lines (first sentence of the
// description, inputs with type, enum and required marker, output field names, read-only/approval
// notes). Compact on purpose: the catalog is in every planner prompt, so each token costs every step.
#pragma once

#include "catalog/catalog_snapshot.hpp"

#include <string>
#include <vector>

namespace skillhost::op {

std::string render_planner_catalog(const std::vector<const catalog::CatalogEntry*>& entries);

// The first sentence of `text` on one line, cut at `max_chars` on a word boundary.
std::string first_sentence(std::string_view text, std::size_t max_chars);

}  // namespace skillhost::op
