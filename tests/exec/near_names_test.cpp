#include "exec/near_names.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::exec {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(EditDistance, CountsEditsIgnoringCaseAndTreatsSwapsAsOne) {
    EXPECT_EQ(edit_distance("priority", "priority"), 0u);
    EXPECT_EQ(edit_distance("prority", "priority"), 1u);
    EXPECT_EQ(edit_distance("PRIORITY", "priority"), 0u);
    EXPECT_EQ(edit_distance("pirority", "priority"), 1u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(NearNames, ClosestFirstAndOnlyPlausibleTypos) {
    const std::vector<std::string_view> fields = {"title", "priority", "due", "tags"};
    EXPECT_THAT(near_names("prio", fields), ElementsAre("priority"));
    EXPECT_THAT(near_names("titel", fields), ElementsAre("title"));
    EXPECT_THAT(near_names("colour", fields), IsEmpty());
    const std::vector<std::string_view> skills = {"task_create", "task_delete", "fs_read"};
    EXPECT_THAT(near_names("task_creat", skills), ElementsAre("task_create"));
    EXPECT_THAT(near_names("task_delet", skills), ElementsAre("task_delete"));
    EXPECT_THAT(near_names("create", skills), ElementsAre("task_create"));
}

}  // namespace
}  // namespace skillhost::exec
