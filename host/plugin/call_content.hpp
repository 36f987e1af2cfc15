// The content items a skill adds beside its structured result ("skillhost.content/1"): checked
// one by one as they arrive and kept, bounded, until the executor takes them with the answer.
#pragma once

#include "base/error.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <mutex>
#include <string_view>

namespace skillhost::plugin {

// Checks one MCP content item (text, image, audio, resource_link, resource) and returns it as an
// object. CONTENT_INVALID names the field that is wrong and what it should be.
Result<boost::json::object> parse_content_item(std::string_view item_json);

class CallContent {
public:
    CallContent(std::size_t max_items, std::size_t max_bytes) : max_items_(max_items), max_bytes_(max_bytes) {}

    // Appends the item, or says why not (CONTENT_INVALID, CONTENT_TOO_LARGE). Thread-safe.
    Status add(std::string_view item_json);
    // The items added so far, in order; leaves none behind.
    boost::json::array take();

private:
    const std::size_t max_items_, max_bytes_;
    std::mutex mutex_;
    boost::json::array items_;
    std::size_t bytes_ = 0;
};

}  // namespace skillhost::plugin
