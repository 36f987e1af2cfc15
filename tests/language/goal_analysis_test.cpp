#include "language/goal_analysis.hpp"

#include <gtest/gtest.h>

namespace skillhost::language {
namespace {

TEST(GoalAnalysis, FindsTheCommonArguments) {
    const auto goal = analyse_goal("Remind me to water the plants this evening, it's urgent");
    EXPECT_EQ(goal.verb, GoalVerb::create);
    EXPECT_EQ(goal.priority, "high");
    EXPECT_EQ(goal.time_phrase, "this evening");
    const auto files = analyse_goal("What's in docs/guide.txt?");
    EXPECT_EQ(files.file_name, "docs/guide.txt");
    EXPECT_EQ(files.verb, GoalVerb::read);
    EXPECT_EQ(files.domain, GoalDomain::file);
    EXPECT_EQ(analyse_goal("what happened in the last 3 days").time_phrase, "last 3 days");
}

}  // namespace
}  // namespace skillhost::language
