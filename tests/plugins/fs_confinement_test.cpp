// The fs plugin's security boundary under attack. Next to the workspace lies `outside/` with a
// sentinel file, and `workspace-evil/` whose name starts with the workspace's (the string-prefix
// trap). Every escape attempt, for every skill, must fail with PATH_NOT_ALLOWED (or, for names
// taken literally, FILE_NOT_FOUND); the sentinel's content must never appear in any result and
// nothing outside the workspace may be created or changed.
#include "plugins/builtin_host.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::AnyOf;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSentinel = "SENTINEL-7f3a-do-not-leak";

std::string quoted(const std::string& s) {
    return json::serialize(json::value(s));
}

// Every regular file below `dir` (following nothing), with its content.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
    std::map<std::string, std::string> out;
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_symlink()) continue;
        out[fs::relative(it->path(), dir).string()] = it->is_regular_file() ? read_file(it->path()) : "<dir>";
    }
    return out;
}

class FsConfinementTest : public ::testing::Test {
protected:
    BuiltinHost host;
    fs::path base, ws, outside, evil;
    std::map<std::string, std::string> outside_before, evil_before;

    void SetUp() override {
        base = host.home() / "area";
        ws = base / "workspace";
        outside = base / "outside";
        evil = base / "workspace-evil";
        write_file(ws / "docs/readme.md", "inside content\n");
        write_file(outside / "sentinel.txt", kSentinel);
        write_file(outside / "sub/deeper.txt", kSentinel);
        write_file(evil / "secret.txt", kSentinel);
        fs::create_directory_symlink("../outside", ws / "link_dir");
        fs::create_directory_symlink(outside, ws / "link_dir_abs");
        fs::create_symlink("../outside/sentinel.txt", ws / "link_file");
        fs::create_symlink(outside / "sentinel.txt", ws / "link_file_abs");
        fs::create_directory_symlink(evil, ws / "link_evil");
        fs::create_directory_symlink("..", ws / "docs/up");           // inside: docs/up is the root
        fs::create_directory_symlink("../..", ws / "docs/up_twice");  // leads above the root
        fs::create_symlink("loop_b", ws / "loop_a");
        fs::create_symlink("loop_a", ws / "loop_b");
        fs::create_symlink("self", ws / "self");
        fs::create_symlink("docs/readme.md", ws / "inside_link");
        fs::create_symlink(ws / "docs" / "readme.md", ws / "inside_link_abs");
        host.workspace_root = ws;
        outside_before = snapshot(outside);
        evil_before = snapshot(evil);
    }

    void TearDown() override {
        EXPECT_EQ(snapshot(outside), outside_before) << "something outside the workspace changed";
        EXPECT_EQ(snapshot(evil), evil_before) << "something in the look-alike directory changed";
    }

    // Every skill on `path`: none may succeed or leak; returns the error codes seen.
    std::vector<std::string> attack(const std::string& path) {
        const std::string p = quoted(path);
        std::vector<std::string> codes;
        for (const auto& [skill, args] : std::vector<std::pair<std::string, std::string>>{
                 {"fs_read", "{\"path\":" + p + "}"},
                 {"fs_list", "{\"path\":" + p + ",\"recursive\":true}"},
                 {"fs_search", "{\"path\":" + p + ",\"text\":\"SENTINEL\"}"},
                 {"fs_write", "{\"path\":" + p + ",\"content\":\"PWNED\",\"overwrite\":true,\"create_dirs\":true}"},
                 {"fs_write",
                  "{\"path\":" + quoted(path + "/new.txt") + ",\"content\":\"PWNED\",\"create_dirs\":true}"}}) {
            auto r = host.call(skill, args);
            EXPECT_FALSE(r.ok) << skill << " on " << path << " succeeded: " << output_text(r);
            EXPECT_THAT(output_text(r), Not(HasSubstr(kSentinel))) << skill << " on " << path;
            codes.push_back(r.error.code);
        }
        return codes;
    }

    void expect_not_allowed(const std::string& path, const std::string& reason = {}) {
        const std::string p = quoted(path);
        for (const auto& code : attack(path)) EXPECT_EQ(code, "PATH_NOT_ALLOWED") << path;
        auto r = host.call("fs_read", "{\"path\":" + p + "}");
        ASSERT_FALSE(r.ok);
        EXPECT_THAT(r.error.message, HasSubstr(ws.string())) << "the error names the root";
        EXPECT_EQ(json::value_to<std::string>(r.error.details.at("path")), path);
        if (!reason.empty()) {
            EXPECT_EQ(json::value_to<std::string>(r.error.details.at("reason")), reason) << path;
        }
    }
};

TEST_F(FsConfinementTest, DotDotTraversalIsRefused) {
    expect_not_allowed("../outside/sentinel.txt", "parent_escape");
    expect_not_allowed("docs/../../outside/sentinel.txt", "parent_escape");
    expect_not_allowed("..", "parent_escape");
    expect_not_allowed("./docs/./../../outside", "parent_escape");
    expect_not_allowed("../workspace-evil/secret.txt", "parent_escape");
}

TEST_F(FsConfinementTest, AbsolutePathsOutsideTheRootAreRefused) {
    expect_not_allowed((outside / "sentinel.txt").string(), "absolute_outside_root");
    expect_not_allowed("/etc/passwd", "absolute_outside_root");
    expect_not_allowed("/", "absolute_outside_root");
    // Same string prefix as the root, different directory: whole components are compared.
    expect_not_allowed((evil / "secret.txt").string(), "absolute_outside_root");
    expect_not_allowed(ws.string() + "/../outside/sentinel.txt", "parent_escape");
}

TEST_F(FsConfinementTest, EncodedTraversalIsTakenLiterally) {
    // Percent-encoding and backslashes are not decoded: such a path is an odd but ordinary name
    // inside the workspace. Reading it finds nothing; writing it creates exactly that name inside.
    for (const std::string path : {"%2e%2e/outside/sentinel.txt", "..%2foutside%2fsentinel.txt",
                                   "%2E%2E%2F%2E%2E%2Foutside", "..%252f..%252foutside", "..\\outside\\sentinel.txt"}) {
        const std::string p = quoted(path);
        for (const auto& [skill, args] : std::vector<std::pair<std::string, std::string>>{
                 {"fs_read", "{\"path\":" + p + "}"},
                 {"fs_list", "{\"path\":" + p + "}"},
                 {"fs_search", "{\"path\":" + p + ",\"text\":\"SENTINEL\"}"}}) {
            auto r = host.call(skill, args);
            ASSERT_FALSE(r.ok) << skill << " " << path;
            EXPECT_EQ(r.error.code, "FILE_NOT_FOUND") << skill << " " << path;
            EXPECT_THAT(output_text(r), Not(HasSubstr(kSentinel)));
        }
        auto w = host.call("fs_write", "{\"path\":" + p + ",\"content\":\"literal\",\"create_dirs\":true}");
        ASSERT_TRUE(w.ok) << path << ": " << output_text(w);
        EXPECT_EQ(read_file(ws / path), "literal") << path;
    }
}

TEST_F(FsConfinementTest, NulBytesAreRefused) {
    auto r = host.call("fs_read", R"({"path":"docs/readme.md\u0000../../outside/sentinel.txt"})");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "PATH_NOT_ALLOWED");
    EXPECT_EQ(r.error.details.at("reason"), "nul_byte");
}

TEST_F(FsConfinementTest, SymlinkEscapeThroughAFileIsRefused) {
    expect_not_allowed("link_file", "symlink_outside_root");
    expect_not_allowed("link_file_abs", "symlink_outside_root");
}

TEST_F(FsConfinementTest, SymlinkEscapeThroughADirectoryIsRefused) {
    expect_not_allowed("link_dir", "symlink_outside_root");
    expect_not_allowed("link_dir/sentinel.txt", "symlink_outside_root");
    expect_not_allowed("link_dir/sub/deeper.txt", "symlink_outside_root");
    expect_not_allowed("link_dir_abs/sentinel.txt", "symlink_outside_root");
    expect_not_allowed("link_evil/secret.txt", "symlink_outside_root");
    expect_not_allowed("docs/up_twice/outside/sentinel.txt", "symlink_outside_root");
    expect_not_allowed("docs/up/../outside/sentinel.txt");
}

TEST_F(FsConfinementTest, SymlinkLoopsAreRefusedClearly) {
    for (const std::string path : {"loop_a", "self", "loop_b/x.txt"}) {
        auto r = host.call("fs_read", "{\"path\":" + quoted(path) + "}");
        ASSERT_FALSE(r.ok) << path;
        EXPECT_EQ(r.error.code, "PATH_NOT_ALLOWED") << path;
        EXPECT_EQ(r.error.details.at("reason"), "symlink_loop") << path;
        EXPECT_THAT(r.error.message, HasSubstr("loop"));
        auto w = host.call("fs_write", "{\"path\":" + quoted(path) + ",\"content\":\"x\",\"overwrite\":true}");
        ASSERT_FALSE(w.ok) << path;
        EXPECT_EQ(w.error.code, "PATH_NOT_ALLOWED") << path;
    }
}

TEST_F(FsConfinementTest, VeryLongPathsAreAClearError) {
    std::string deep;
    for (int i = 0; i < 1500; ++i) deep += "ab/";
    std::string long_name(300, 'n');
    for (const std::string& path : {deep + "x.txt", long_name, "docs/" + long_name + "/x"}) {
        for (const auto& code : attack(path)) EXPECT_EQ(code, "PATH_TOO_LONG");
        auto r = host.call("fs_read", "{\"path\":" + quoted(path) + "}");
        EXPECT_THAT(r.error.message, HasSubstr("too long"));
        EXPECT_LT(r.error.message.size(), 600u) << "the message shortens the path";
    }
    // Many ".." that would climb out are refused before anything is touched.
    std::string climb;
    for (int i = 0; i < 1000; ++i) climb += "../";
    for (const auto& code : attack(climb + "etc/passwd")) EXPECT_EQ(code, "PATH_NOT_ALLOWED");
}

TEST_F(FsConfinementTest, LinksThatStayInsideStillWork) {
    for (const std::string path : {"inside_link", "inside_link_abs", "docs/up/docs/readme.md"}) {
        auto r = host.call("fs_read", "{\"path\":" + quoted(path) + "}");
        ASSERT_TRUE(r.ok) << path << ": " << output_text(r);
        EXPECT_EQ(r.output.at("content"), "inside content\n");
        EXPECT_EQ(r.output.at("path"), "docs/readme.md");
    }
    // Writing through an inside link replaces the file it names, never the link's target outside.
    auto w = host.call("fs_write", R"({"path":"inside_link","content":"changed\n","overwrite":true})");
    ASSERT_TRUE(w.ok) << output_text(w);
    EXPECT_EQ(read_file(ws / "docs/readme.md"), "changed\n");
    EXPECT_TRUE(fs::is_symlink(ws / "inside_link"));
}

TEST_F(FsConfinementTest, WalksNeverFollowLinksOutOfTheRoot) {
    auto list = host.call("fs_list", R"({"recursive":true,"include_hidden":true,"max_entries":5000})");
    ASSERT_TRUE(list.ok) << output_text(list);
    for (const auto& e : list.output.at("entries").as_array()) {
        std::string path(e.at("path").as_string());
        EXPECT_THAT(path, Not(HasSubstr("sentinel"))) << path;
        EXPECT_THAT(path, Not(HasSubstr("secret"))) << path;
    }
    auto search = host.call("fs_search", R"({"text":"SENTINEL","include_hidden":true})");
    ASSERT_TRUE(search.ok) << output_text(search);
    EXPECT_EQ(search.output.at("count"), 0);
    auto by_name = host.call("fs_search", R"({"name":"*sentinel*"})");
    ASSERT_TRUE(by_name.ok);
    EXPECT_EQ(by_name.output.at("count"), 0);
    EXPECT_THAT(output_text(list) + output_text(search), Not(HasSubstr(kSentinel)));
}

TEST_F(FsConfinementTest, RootReachedThroughASymlinkConfinesToItsTarget) {
    fs::create_directory_symlink(ws, base / "workspace-link");
    host.workspace_root = base / "workspace-link";
    auto relative = host.call("fs_read", R"({"path":"docs/readme.md"})");
    ASSERT_TRUE(relative.ok) << output_text(relative);
    auto via_link =
        host.call("fs_read", "{\"path\":" + quoted((base / "workspace-link/docs/readme.md").string()) + "}");
    ASSERT_TRUE(via_link.ok) << output_text(via_link);
    auto via_real = host.call("fs_read", "{\"path\":" + quoted((ws / "docs/readme.md").string()) + "}");
    ASSERT_TRUE(via_real.ok) << output_text(via_real);
    for (const std::string& path : std::vector<std::string>{
             "../outside/sentinel.txt", "link_dir/sentinel.txt", (outside / "sentinel.txt").string(),
             (base / "workspace-link/../outside/sentinel.txt").string()}) {
        for (const auto& code : attack(path)) EXPECT_EQ(code, "PATH_NOT_ALLOWED") << path;
    }
    auto w = host.call("fs_write", R"({"path":"made-via-link.txt","content":"ok"})");
    ASSERT_TRUE(w.ok) << output_text(w);
    EXPECT_EQ(read_file(ws / "made-via-link.txt"), "ok");
}

}  // namespace
}  // namespace skillhost::testing
