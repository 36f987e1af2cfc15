#include "mcp/tool_listing.hpp"
#include "store/error_codes.hpp"

#include "catalog/catalog_render.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace skillhost::mcp {

namespace {
constexpr std::string_view kCursorPrefix = "after:";
}

Result<ToolPage> page_tools(const std::vector<const catalog::CatalogEntry*>& visible,
                            const std::optional<std::string>& cursor, std::size_t page_size) {
    page_size = std::max<std::size_t>(page_size, 1);
    auto begin = visible.begin();
    if (cursor) {
        if (!cursor->starts_with(kCursorPrefix) || cursor->size() == kCursorPrefix.size()) {
            return Error{errors::kInvalidCursor,
                         "cursor '" + *cursor +
                             "' was not issued by this server; pass the nextCursor of a previous "
                             "tools/list result, or omit it to start from the first page",
                         {{"cursor", *cursor}}};
        }
        const std::string after = cursor->substr(kCursorPrefix.size());
        begin =
            std::upper_bound(visible.begin(), visible.end(), after,
                             [](const std::string& id, const catalog::CatalogEntry* e) { return id < e->spec->id; });
    }
    ToolPage page;
    auto end = begin + static_cast<std::ptrdiff_t>(std::min<std::size_t>(page_size, visible.end() - begin));
    for (auto it = begin; it != end; ++it) page.tools.push_back(catalog::render_mcp_tool(**it));
    if (end != visible.end()) page.next_cursor = std::string(kCursorPrefix) + (*(end - 1))->spec->id;
    return page;
}

std::string visible_tools_fingerprint(const std::vector<const catalog::CatalogEntry*>& visible) {
    std::string out;
    for (const auto* entry : visible) {
        out += boost::json::serialize(catalog::render_mcp_tool(*entry));
        out += '\n';
    }
    return out;
}

}  // namespace skillhost::mcp
