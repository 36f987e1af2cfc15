#include "cli/output.hpp"

#include "base/json_text.hpp"

#include <iostream>

namespace skillhost::cli {

void print_error(const Error& error) {
    std::cerr << "error: " << error.code << ": " << error.message << "\n";
    for (const auto& s : error.suggestions) std::cerr << "  hint: " << s << "\n";
}

void print_error_json(const Error& error) {
    boost::json::object out;
    out["error"] = error.to_json();
    std::cout << pretty_json(out) << "\n";
}

void print_json(const boost::json::value& value) {
    std::cout << pretty_json(value) << "\n";
}

int fail_setup(const Error& error, bool json) {
    if (json) print_error_json(error);
    print_error(error);
    return kExitUsage;
}

int exit_code_for(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::pending:
        case ErrorKind::invalid:
        case ErrorKind::unauthenticated:
        case ErrorKind::forbidden:
        case ErrorKind::not_found:
        case ErrorKind::unsupported:
        case ErrorKind::not_acceptable:
        case ErrorKind::conflict:
        case ErrorKind::gone:
        case ErrorKind::too_large:
        case ErrorKind::mismatch:
        case ErrorKind::too_many:
        case ErrorKind::headers_too_large:
        case ErrorKind::internal:
        case ErrorKind::plugin:
        case ErrorKind::unavailable:
        case ErrorKind::timeout: return kExitFailed;
    }
    return kExitFailed;
}

int fail_operation(const Error& error, bool json) {
    if (json) print_error_json(error);
    print_error(error);
    return exit_code_for(error.kind());
}

}  // namespace skillhost::cli
