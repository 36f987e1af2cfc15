// Shared by the manifest tests: parsing inline YAML and looking at the problems it produced.
#pragma once

#include "manifest/manifest.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace skillhost::manifest::testing {

inline Result<Manifest> parse(std::string_view yaml) {
    return parse_manifest(yaml, "test.yaml");
}

// Every problem from a failed parse's details.problems, in reported order.
inline std::vector<ManifestProblem> problems_of(const Result<Manifest>& result) {
    std::vector<ManifestProblem> out;
    if (result.ok()) return out;
    const auto* list = result.error().details.if_contains("problems");
    if (list == nullptr || !list->is_array()) return out;
    for (const auto& item : list->as_array()) {
        const auto& problem = item.as_object();
        out.push_back(ManifestProblem{
            std::string(problem.at("file").as_string()), static_cast<int>(problem.at("line").as_int64()),
            static_cast<int>(problem.at("column").as_int64()), std::string(problem.at("field").as_string()),
            std::string(problem.at("message").as_string())});
    }
    return out;
}

// The single problem a manifest with exactly one mistake produces; fails the test otherwise.
inline ManifestProblem only_problem(const Result<Manifest>& result) {
    EXPECT_FALSE(result.ok()) << "expected the manifest to be rejected";
    auto problems = problems_of(result);
    EXPECT_EQ(problems.size(), 1u) << (result.ok() ? std::string("(accepted)") : result.error().message);
    if (problems.empty()) return {};
    return problems.front();
}

inline Manifest parsed_ok(const Result<Manifest>& result) {
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    if (!result.ok()) return {};
    return result.value();
}

}  // namespace skillhost::manifest::testing
