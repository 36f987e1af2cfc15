// One statement text on both backends: `?` placeholders, integer/text/NULL parameters, rows as text.
#include "db/backend_connection.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

namespace skillhost::db {
namespace {

TEST(NumberedPlaceholders, NumbersOnlyTheMarksOutsideLiteralsIdentifiersAndComments) {
    EXPECT_EQ(numbered_placeholders("SELECT ?, ?"), "SELECT $1, $2");
    EXPECT_EQ(numbered_placeholders("SELECT '?', \"a?\", ? -- ?\n, ?"), "SELECT '?', \"a?\", $1 -- ?\n, $2");
    EXPECT_EQ(numbered_placeholders("SELECT 'it''s ?', ?"), "SELECT 'it''s ?', $1");
    EXPECT_EQ(numbered_placeholders("SELECT '?"), "SELECT '?");  // an unclosed literal numbers nothing after it
}

class BackendConnectionOnEachBackend : public testing::OnEachBackend {};

SKILLHOST_ON_EACH_BACKEND(BackendConnectionOnEachBackend);

TEST_P(BackendConnectionOnEachBackend, ParametersAndRowsMeanTheSameOnBothBackends) {
    auto connection = BackendConnection::open(location());
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    EXPECT_EQ((*connection)->backend(), GetParam());
    auto inserted =
        (*connection)
            ->run("storing a mode", "INSERT INTO user_modes (user_id, mode, updated_at_ms) VALUES (?, ?, ?)",
                  {std::string("bob's ?"), std::string("dual"), std::int64_t{-42}});
    ASSERT_TRUE(inserted.ok()) << inserted.error().message;
    EXPECT_EQ(inserted->affected, 1);
    auto rows = (*connection)
                    ->run("reading modes", "SELECT user_id, updated_at_ms, NULL, '?' FROM user_modes WHERE user_id = ?",
                          {std::string("bob's ?")});
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows->text(0, 0), "bob's ?");
    EXPECT_EQ(rows->integer(0, 1), -42);
    EXPECT_TRUE(rows->is_null(0, 2));
    EXPECT_EQ(rows->text(0, 3), "?");
    auto none = (*connection)->run("deleting nobody", "DELETE FROM user_modes WHERE user_id = ?", {std::monostate{}});
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_EQ(none->affected, 0);

    auto broken = (*connection)->run("reading a missing table", "SELECT * FROM no_such_table", {});
    ASSERT_FALSE(broken.ok());
    EXPECT_EQ(broken.error().code, "DATABASE_ERROR");
    EXPECT_NE(broken.error().message.find("reading a missing table"), std::string::npos) << broken.error().message;
}

}  // namespace
}  // namespace skillhost::db
