// How a plugin's "skillhost.storage/1" requests reach the host's storage. The plugin subsystem sits
// above the store but must not need a database where it runs (a runner process has none), so it
// depends only on this interface: the host's assembled runtime implements it over the store, and a
// runner forwards each request to the host (CallControl::storage). Without one, storage answers
// STORAGE_UNAVAILABLE.
#pragma once

#include "base/error.hpp"

#include <string>
#include <string_view>

namespace skillhost::plugin {

// Whose store a request acts on, as the host knows it: the plugin making the call and the call's
// user, never names the plugin passes.
struct StorageOrigin {
    std::string_view plugin;
    std::string_view user;
};

// The operations of "skillhost.storage/1", one per ABI function, each with a JSON request:
//   get      {"collection","key"}
//   put      {"collection","key","value":"<JSON text>","expected_version"}
//   remove   {"collection","key","expected_version"}
//   list     {"collection","prefix","cursor","limit"}
//   next_id  {"collection"}
//   batch    {"request":"<the ABI's batch request, JSON text>"}
// The strings are the plugin's bytes, which need not be valid UTF-8: parse the request with
// invalid UTF-8 allowed, and let the store refuse such a key by name. Answers the ABI's answer JSON
// for that function.
class StorageService {
public:
    virtual ~StorageService() = default;
    virtual Result<std::string> handle(const StorageOrigin& origin, std::string_view operation,
                                       std::string_view request_json) = 0;
};

}  // namespace skillhost::plugin
