#include "base/error.hpp"

#include <boost/json/array.hpp>

#include <ostream>

namespace skillhost {

std::string_view to_string(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::pending: return "pending";
        case ErrorKind::invalid: return "invalid";
        case ErrorKind::unauthenticated: return "unauthenticated";
        case ErrorKind::forbidden: return "forbidden";
        case ErrorKind::not_found: return "not_found";
        case ErrorKind::unsupported: return "unsupported";
        case ErrorKind::not_acceptable: return "not_acceptable";
        case ErrorKind::conflict: return "conflict";
        case ErrorKind::gone: return "gone";
        case ErrorKind::too_large: return "too_large";
        case ErrorKind::mismatch: return "mismatch";
        case ErrorKind::too_many: return "too_many";
        case ErrorKind::headers_too_large: return "headers_too_large";
        case ErrorKind::internal: return "internal";
        case ErrorKind::plugin: return "plugin";
        case ErrorKind::unavailable: return "unavailable";
        case ErrorKind::timeout: return "timeout";
    }
    return "internal";
}

std::optional<ErrorKind> error_kind_from_string(std::string_view text) {
    for (ErrorKind kind : kAllErrorKinds)
        if (to_string(kind) == text) return kind;
    return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, const ErrorCodeText& code) {
    return out << code.text_;
}

Error::Error(const ErrorCode& c, std::string message_text, boost::json::object details_object,
             std::vector<std::string> suggestion_list)
    : code(std::string(c.name)),
      message(std::move(message_text)),
      details(std::move(details_object)),
      suggestions(std::move(suggestion_list)),
      kind_(c.kind) {}

Error Error::from_plugin(std::string plugin_code, std::string message_text, boost::json::object details_object) {
    return reported(std::move(plugin_code), ErrorKind::plugin, std::move(message_text), std::move(details_object));
}

Error Error::reported(std::string code_text, ErrorKind kind, std::string message_text,
                      boost::json::object details_object) {
    Error error;
    error.code = ErrorCodeText(std::move(code_text));
    error.message = std::move(message_text);
    error.details = std::move(details_object);
    error.kind_ = kind;
    return error;
}

Error Error::restored(std::string code_text, std::string message_text) {
    return reported(std::move(code_text), ErrorKind::internal, std::move(message_text));
}

Error& Error::recode(const ErrorCode& c) {
    code = ErrorCodeText(std::string(c.name));
    kind_ = c.kind;
    return *this;
}

boost::json::object Error::to_json() const {
    boost::json::object out;
    out["code"] = code.str();
    out["message"] = message;
    out["details"] = details;
    boost::json::array hints;
    for (const auto& s : suggestions) hints.emplace_back(s);
    out["suggestions"] = std::move(hints);
    return out;
}

}  // namespace skillhost
