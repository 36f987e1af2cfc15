// "Did you mean ...?": the names closest to a misspelt one (unknown argument fields, unknown skill ids).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::exec {

// Case-insensitive edit distance (insert, delete, substitute, swap of neighbours).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates close enough to `name` to be a plausible typo, closest first: within an
// edit distance of about a third of the name's length, or sharing a prefix/suffix (e.g. "create"
// for "task_create"). Ties keep the candidates' order.
std::vector<std::string> near_names(std::string_view name, const std::vector<std::string_view>& candidates,
                                    std::size_t limit = 3);

}  // namespace skillhost::exec
