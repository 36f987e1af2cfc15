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

// "My week" is the seven days behind on any weekday (on a Monday the calendar week holds only
// today, which once failed "Summarize my week" every Monday), and its words are no search words.
TEST(GoalAnalysis, MyWeekIsTheLastSevenDaysAndNotASearchWord) {
    const auto week = analyse_goal("Summarize my week");
    EXPECT_EQ(week.time_phrase, "last 7 days");
    for (const auto& word : week.content_words) EXPECT_NE(word, "week");
    EXPECT_EQ(analyse_goal("What did I do this week?").time_phrase, "this week");
    EXPECT_EQ(analyse_goal("How was my day?").time_phrase, "today");
}

}  // namespace
}  // namespace skillhost::language
