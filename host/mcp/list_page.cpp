#include "mcp/list_page.hpp"

#include <algorithm>

namespace skillhost::mcp {

namespace json = boost::json;

bool read_cursor(const json::value& params, std::optional<std::string>& cursor) {
    const json::object* p = params.if_object();
    const json::value* c = p ? p->if_contains("cursor") : nullptr;
    if (!c || c->is_null()) return true;
    if (!c->is_string()) return false;
    cursor = std::string(c->get_string());
    return true;
}

json::object page_of(json::array items, const char* key, const char* member, const std::optional<std::string>& cursor,
                     std::size_t page_size) {
    page_size = std::max<std::size_t>(1, page_size);
    auto first = items.begin();
    if (cursor)
        first = std::find_if(items.begin(), items.end(),
                             [&](const json::value& v) { return v.as_object().at(key).as_string() > *cursor; });
    json::array page;
    auto it = first;
    for (; it != items.end() && page.size() < page_size; ++it) page.push_back(std::move(*it));
    json::object result{{member, std::move(page)}};
    if (it != items.end()) result["nextCursor"] = result[member].as_array().back().as_object().at(key);
    return result;
}

}  // namespace skillhost::mcp
