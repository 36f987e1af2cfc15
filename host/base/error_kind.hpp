// What kind of failure an error is. Every host error code is declared once with its kind
// (host/<subsystem>/error_codes.hpp), and each front end derives its answer from the kind alone:
// the HTTP status (server/api_error.cpp), the JSON-RPC error (mcp/rpc_error.cpp) and the CLI's exit
// code (cli/output.cpp).
#pragma once

#include <optional>
#include <string_view>

namespace skillhost {

enum class ErrorKind {
    pending,            // the request is kept and waits for a person: an approval or a question (202)
    invalid,            // the request is malformed or its values are wrong; fix it and send it again (400)
    unauthenticated,    // no credential, or one the host does not know (401)
    forbidden,          // the caller is known but may not do this: policy, scope, role (403)
    not_found,          // the thing named does not exist, or is not visible to the caller (404)
    unsupported,        // the target exists but does not offer this operation or method (405)
    not_acceptable,     // the representation the client asks for is not offered (406)
    conflict,           // the thing is in another state than the request needs (409)
    gone,               // it existed, but is no longer kept (410)
    too_large,          // a request or a value is over a size limit (413)
    mismatch,           // a retry that differs from the request it repeats (422)
    too_many,           // a per-caller limit is reached; retry later (429)
    headers_too_large,  // the request's headers are over the limit (431)
    internal,           // the host failed; nothing the caller can fix (500)
    plugin,             // a plugin's own error code, reported as the plugin gave it (502 if a request fails on it)
    unavailable,        // a resource the host needs is not available now: storage, runners, shutting down (503)
    timeout,            // no answer in time (504)
};

inline constexpr ErrorKind kAllErrorKinds[] = {
    ErrorKind::pending,           ErrorKind::invalid,   ErrorKind::unauthenticated,
    ErrorKind::forbidden,         ErrorKind::not_found, ErrorKind::unsupported,
    ErrorKind::not_acceptable,    ErrorKind::conflict,  ErrorKind::gone,
    ErrorKind::too_large,         ErrorKind::mismatch,  ErrorKind::too_many,
    ErrorKind::headers_too_large, ErrorKind::internal,  ErrorKind::plugin,
    ErrorKind::unavailable,       ErrorKind::timeout};

std::string_view to_string(ErrorKind kind);
std::optional<ErrorKind> error_kind_from_string(std::string_view text);

// A host error code: its stable UPPER_SNAKE name and its kind. Declare each one once, in its
// subsystem's error_codes.hpp, and build an Error from the constant.
struct ErrorCode {
    std::string_view name;
    ErrorKind kind;
    // The same code: the name decides (a code declared under two kinds is still one code).
    friend constexpr bool operator==(const ErrorCode& a, const ErrorCode& b) { return a.name == b.name; }
};

// One row of the catalogue (cli::error_catalogue): a code and the subsystem that declares it.
struct CataloguedCode {
    ErrorCode code;
    std::string_view subsystem;
};

// The code named `name` in the given lists (kExecErrorCodes, ...), the first declared if it has two
// kinds; nullopt when none of them declares it.
template <class... Lists>
constexpr std::optional<ErrorCode> find_error_code(std::string_view name, const Lists&... lists) {
    std::optional<ErrorCode> found;
    auto search = [&](const auto& list) {
        for (const CataloguedCode& row : list)
            if (!found && row.code.name == name) found = row.code;
    };
    (search(lists), ...);
    return found;
}

}  // namespace skillhost

// Declares a subsystem's codes from one list, X(kConstant, "NAME", kind) per code: the constants in
// skillhost::errors, and `list_name`, every code of the list with its subsystem, for the catalogue.
#define SKILLHOST_ERROR_CODE_CONSTANT(constant, name, kind) \
    inline constexpr ::skillhost::ErrorCode constant{name, ::skillhost::ErrorKind::kind};
#define SKILLHOST_ERROR_CODE_ROW(constant, name, kind) ::skillhost::CataloguedCode{constant, kSubsystemName},
#define SKILLHOST_DECLARE_ERROR_CODES(LIST, list_name, subsystem)                                \
    namespace skillhost::errors {                                                                \
    LIST(SKILLHOST_ERROR_CODE_CONSTANT)                                                          \
    namespace list_name##_rows {                                                                 \
        inline constexpr std::string_view kSubsystemName = subsystem;                            \
        inline constexpr ::skillhost::CataloguedCode kRows[] = {LIST(SKILLHOST_ERROR_CODE_ROW)}; \
    }                                                                                            \
    inline constexpr const auto& list_name = list_name##_rows::kRows;                            \
    }
