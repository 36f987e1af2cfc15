#include "base/error.hpp"

#include <boost/json/array.hpp>

namespace skillhost {

boost::json::object Error::to_json() const {
    boost::json::object out;
    out["code"] = code;
    out["message"] = message;
    out["details"] = details;
    boost::json::array hints;
    for (const auto& s : suggestions) hints.emplace_back(s);
    out["suggestions"] = std::move(hints);
    return out;
}

}  // namespace skillhost
