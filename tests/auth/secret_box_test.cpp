// Sealing users' secrets: a value opens only under the key and the owner it was sealed for, the key
// file is made private and refused when it is not.
#include "auth/error_codes.hpp"
#include "auth/secret_box.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>

namespace skillhost::auth {
namespace {

using testing::TempDir;

TEST(SecretBox, AValueOpensOnlyUnderItsKeyAndForItsOwner) {
    TempDir dir{"skillhost-secret-box"};
    auto box = SecretBox::open(dir / "keys/secret.key", true);
    ASSERT_TRUE(box) << box.error().message;
    struct stat key {};
    ASSERT_EQ(::stat((dir / "keys/secret.key").c_str(), &key), 0);
    EXPECT_EQ(key.st_mode & 0777, 0600u);
    EXPECT_EQ(key.st_size, 32);

    auto sealed = box->seal("ghp_value-of-alice", "alice\nGITHUB_TOKEN");
    ASSERT_TRUE(sealed);
    EXPECT_EQ(sealed->key_id, box->key_id());
    EXPECT_EQ(sealed->sealed.find("ghp_value"), std::string::npos);
    auto opened = box->open(*sealed, "alice\nGITHUB_TOKEN");
    ASSERT_TRUE(opened) << opened.error().message;
    EXPECT_EQ(*opened, "ghp_value-of-alice");
    // The same value twice seals differently (a fresh nonce each time).
    EXPECT_NE(box->seal("ghp_value-of-alice", "alice\nGITHUB_TOKEN")->sealed, sealed->sealed);

    // Moved to bob's row, or altered, it does not open.
    EXPECT_TRUE(box->open(*sealed, "bob\nGITHUB_TOKEN").error().is(errors::kSecretKeyMismatch));
    SealedSecret altered = *sealed;
    altered.sealed[0] = altered.sealed[0] == '0' ? '1' : '0';
    EXPECT_TRUE(box->open(altered, "alice\nGITHUB_TOKEN").error().is(errors::kSecretKeyMismatch));

    // Reopened, the same key; another key file names both ids.
    auto again = SecretBox::open(dir / "keys/secret.key", false);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->key_id(), box->key_id());
    auto other = SecretBox::open(dir / "other.key", true);
    ASSERT_TRUE(other);
    auto mismatch = other->open(*sealed, "alice\nGITHUB_TOKEN");
    ASSERT_FALSE(mismatch);
    EXPECT_TRUE(mismatch.error().is(errors::kSecretKeyMismatch));
    EXPECT_NE(mismatch.error().message.find(box->key_id()), std::string::npos) << mismatch.error().message;
}

TEST(SecretBox, AKeyFileOthersMayReadOrOfTheWrongSizeIsRefused) {
    TempDir dir{"skillhost-secret-box"};
    EXPECT_TRUE(SecretBox::open(dir / "missing.key", false).error().is(errors::kSecretKeyUnavailable));
    ASSERT_TRUE(SecretBox::open(dir / "secret.key", true));
    ::chmod((dir / "secret.key").c_str(), 0644);
    auto readable = SecretBox::open(dir / "secret.key", false);
    ASSERT_FALSE(readable);
    EXPECT_TRUE(readable.error().is(errors::kSecretKeyUnavailable));
    EXPECT_NE(readable.error().message.find("chmod 600"), std::string::npos) << readable.error().message;
    { std::ofstream(dir / "short.key") << "too short"; }
    ::chmod((dir / "short.key").c_str(), 0600);
    auto short_key = SecretBox::open(dir / "short.key", false);
    ASSERT_FALSE(short_key);
    EXPECT_NE(short_key.error().message.find("not 32"), std::string::npos) << short_key.error().message;
}

}  // namespace
}  // namespace skillhost::auth
