// skillhost/testkit_gtest.hpp — GoogleTest assertions for skill call results (header-only).
//
//   auto r = plugin.call("note_add", R"({"text":""})");
//   EXPECT_SKILL_ERROR(r, "NOTE_EMPTY");
//   auto ok = plugin.call("note_add", R"({"text":"buy milk"})");
//   ASSERT_SKILL_OK(ok);
//   EXPECT_EQ(ok.result()["count"].as_int(), 1);
//
// On failure they print the whole outcome (code, message, details, suggestions or the result), so
// a failing test says why without a debugger.
#pragma once

#include <skillhost/testkit.hpp>

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace skillhost::testkit {

// Lets GoogleTest print a SkillCallResult in failure messages.
inline void PrintTo(const SkillCallResult& result, std::ostream* out) {
    *out << result.to_json();
}

inline ::testing::AssertionResult skill_succeeded(const char* expression, const SkillCallResult& result) {
    if (result.ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << expression << " failed with " << result.error_code << ": "
                                         << result.error_message << "\n  full outcome: " << result.to_json();
}

inline ::testing::AssertionResult skill_failed_with(const char* expression, const char* code_expression,
                                                    const SkillCallResult& result, const std::string& code) {
    if (result.ok)
        return ::testing::AssertionFailure() << expression << " succeeded, expected error " << code << " ("
                                             << code_expression << ")\n  result: " << result.result_json;
    if (result.error_code != code)
        return ::testing::AssertionFailure() << expression << " failed with " << result.error_code << ", expected "
                                             << code << "\n  full outcome: " << result.to_json();
    return ::testing::AssertionSuccess();
}

}  // namespace skillhost::testkit

// The call succeeded (ok == true).
#define EXPECT_SKILL_OK(result) EXPECT_PRED_FORMAT1(::skillhost::testkit::skill_succeeded, result)
#define ASSERT_SKILL_OK(result) ASSERT_PRED_FORMAT1(::skillhost::testkit::skill_succeeded, result)
// The call failed with exactly this error code.
#define EXPECT_SKILL_ERROR(result, code) EXPECT_PRED_FORMAT2(::skillhost::testkit::skill_failed_with, result, code)
#define ASSERT_SKILL_ERROR(result, code) ASSERT_PRED_FORMAT2(::skillhost::testkit::skill_failed_with, result, code)
