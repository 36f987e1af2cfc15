// Cursor paging shared by the list methods whose items are sorted by a string key
// (resources/list, resources/templates/list, prompts/list).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace skillhost::mcp {

// params.cursor as a string into `cursor` (left empty when absent); false when present but not a string.
bool read_cursor(const boost::json::value& params, std::optional<std::string>& cursor);

// One page of `items` (sorted by `key`) after the item whose key is `cursor`, as {member: [...],
// "nextCursor"?}; the cursor names the last item of the previous page, so paging stays consistent
// when a reload adds or removes items.
boost::json::object page_of(boost::json::array items, const char* key, const char* member,
                            const std::optional<std::string>& cursor, std::size_t page_size);

}  // namespace skillhost::mcp
