// tools/list pages over the tools a user may see, and a fingerprint of that set so the session can
// tell when hot reload changed what its client sees.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"

#include <boost/json/array.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::mcp {

struct ToolPage {
    boost::json::array tools;
    std::optional<std::string> next_cursor;  // absent on the last page
};

// `visible` is sorted by skill id (as snapshots keep entries). A cursor names the last tool of the
// previous page, so paging stays consistent across a reload (tools added or removed meanwhile shift
// nothing). Error INVALID_CURSOR for a cursor this server did not hand out.
Result<ToolPage> page_tools(const std::vector<const catalog::CatalogEntry*>& visible,
                            const std::optional<std::string>& cursor, std::size_t page_size);

// Everything a client sees of the tools (their rendered MCP objects): a new description or schema
// is a change as much as an added or removed tool.
std::string visible_tools_fingerprint(const std::vector<const catalog::CatalogEntry*>& visible);

}  // namespace skillhost::mcp
