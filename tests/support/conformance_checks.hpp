// What the MCP conformance suite (@modelcontextprotocol/conformance) wrote of one scenario: the
// checks of its checks.json that failed or warned (the suite fails a run on either), each as
// "STATUS id: message; ", or "" when every check passed. Shared by the server and client scenarios'
// tests.
#pragma once

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace skillhost::testing {

inline std::string failed_checks(const std::filesystem::path& checks_json) {
    std::ifstream in(checks_json);
    std::stringstream text;
    text << in.rdbuf();
    std::string problems;
    const boost::json::value checks = boost::json::parse(text.str());
    for (const auto& check : checks.as_array()) {
        const auto& status = check.at("status").as_string();
        if (status != "FAILURE" && status != "WARNING") continue;
        problems += std::string(status) + " " + std::string(check.at("id").as_string());
        if (const auto* message = check.as_object().if_contains("errorMessage"); message && message->is_string())
            problems += ": " + std::string(message->get_string());
        problems += "; ";
    }
    return problems;
}

}  // namespace skillhost::testing
