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

}  // namespace skillhost::cli
