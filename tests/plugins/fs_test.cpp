// The fs plugin's skills and error codes through the real loader and executor.
#include "plugins/builtin_host.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::Contains;
using ::testing::HasSubstr;

std::string quoted(const std::string& s) {
    return json::serialize(json::value(s));
}

class FsTest : public ::testing::Test {
protected:
    BuiltinHost host;
    fs::path ws;

    void SetUp() override {
        ws = host.workspace_root;
        write_file(ws / "README.md", "# Project\nHello world\nThird line\n");
        write_file(ws / "docs/guide.md", "Guide\nthe Budget is 42\nmore budget talk\n");
        write_file(ws / "docs/notes.txt", "nothing here\n");
        write_file(ws / ".hidden", "secret-ish\n");
    }
    std::vector<std::string> paths(const exec::SkillResult& r, const char* list) {
        std::vector<std::string> out;
        EXPECT_TRUE(r.ok) << output_text(r);
        if (r.ok)
            for (const auto& e : field(r, list).as_array()) out.emplace_back(e.at("path").as_string());
        return out;
    }
};

TEST_F(FsTest, ListShowsEntriesSortedWithTypeSizeAndTime) {
    auto r = host.call("fs_list", "{}");
    EXPECT_EQ(paths(r, "entries"), (std::vector<std::string>{"README.md", "docs"}));
    const auto& readme = field(r, "entries").as_array().at(0).as_object();
    EXPECT_EQ(readme.at("type"), "file");
    EXPECT_EQ(readme.at("size"), 33);
    EXPECT_THAT(std::string(readme.at("mtime").as_string()),
                ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"));
    EXPECT_EQ(field(r, "entries").as_array().at(1).at("type"), "directory");
}

TEST_F(FsTest, ListRecursiveWithPatternHiddenAndLimit) {
    EXPECT_EQ(paths(host.call("fs_list", R"({"recursive":true})"), "entries"),
              (std::vector<std::string>{"README.md", "docs", "docs/guide.md", "docs/notes.txt"}));
    EXPECT_EQ(paths(host.call("fs_list", R"({"recursive":true,"pattern":"*.md"})"), "entries"),
              (std::vector<std::string>{"README.md", "docs/guide.md"}));
    EXPECT_EQ(paths(host.call("fs_list", R"({"include_hidden":true})"), "entries"),
              (std::vector<std::string>{".hidden", "README.md", "docs"}));
    EXPECT_EQ(paths(host.call("fs_list", R"({"path":"docs/"})"), "entries"),
              (std::vector<std::string>{"docs/guide.md", "docs/notes.txt"}));
    auto limited = host.call("fs_list", R"({"recursive":true,"max_entries":2})");
    EXPECT_EQ(field(limited, "count"), 2);
    EXPECT_EQ(field(limited, "truncated"), true);
}

TEST_F(FsTest, ListErrorsNameThePathAndTheRoot) {
    auto missing = host.call("fs_list", R"({"path":"nope"})");
    ASSERT_FALSE(missing.ok);
    EXPECT_EQ(missing.error.code, "FILE_NOT_FOUND");
    EXPECT_THAT(missing.error.message, HasSubstr("'nope'"));
    EXPECT_THAT(missing.error.message, HasSubstr(ws.string()));
    EXPECT_THAT(missing.error.suggestions, Contains(HasSubstr("fs_search")));
    auto file = host.call("fs_list", R"({"path":"README.md"})");
    ASSERT_FALSE(file.ok);
    EXPECT_EQ(file.error.code, "NOT_A_DIRECTORY");
}

TEST_F(FsTest, ReadReturnsWholeTextFile) {
    auto r = host.call("fs_read", R"({"path":"docs/guide.md"})");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "content"), "Guide\nthe Budget is 42\nmore budget talk\n");
    EXPECT_EQ(field(r, "encoding"), "utf-8");
    EXPECT_EQ(field(r, "truncated"), false);
    EXPECT_EQ(field(r, "size"), 40);
    // The root itself may be named absolutely.
    auto absolute = host.call("fs_read", "{\"path\":" + quoted((ws / "README.md").string()) + "}");
    ASSERT_TRUE(absolute.ok) << output_text(absolute);
    EXPECT_EQ(field(absolute, "path"), "README.md");
}

TEST_F(FsTest, ReadTruncatesAtMaxBytesWithoutSplittingACharacter) {
    write_file(ws / "accent.txt",
               "ab\xC3\xA9"
               "cd");  // "abécd": é is two bytes at offsets 2-3
    auto r = host.call("fs_read", R"({"path":"accent.txt","max_bytes":3})");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "content"), "ab");
    EXPECT_EQ(field(r, "truncated"), true);
    EXPECT_EQ(field(r, "encoding"), "utf-8");
    EXPECT_THAT(std::string(field(r, "note").as_string()), HasSubstr("max_bytes"));
}

TEST_F(FsTest, ReadLineRange) {
    auto r = host.call("fs_read", R"({"path":"README.md","start_line":2,"end_line":3})");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "content"), "Hello world\nThird line\n");
    EXPECT_EQ(field(r, "start_line"), 2);
    EXPECT_EQ(field(r, "end_line"), 3);
    auto from = host.call("fs_read", R"({"path":"README.md","start_line":3})");
    EXPECT_EQ(field(from, "content"), "Third line\n");
    auto beyond = host.call("fs_read", R"({"path":"README.md","start_line":10})");
    ASSERT_TRUE(beyond.ok);
    EXPECT_EQ(field(beyond, "content"), "");
    auto reversed = host.call("fs_read", R"({"path":"README.md","start_line":3,"end_line":2})");
    ASSERT_FALSE(reversed.ok);
    EXPECT_EQ(reversed.error.code, "INVALID_LINE_RANGE");
}

TEST_F(FsTest, BinaryFilesComeBackAsBase64WithANote) {
    write_file(ws / "blob.bin", std::string("\x00\x01\x02\xFF", 4));
    auto r = host.call("fs_read", R"({"path":"blob.bin"})");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "encoding"), "base64");
    EXPECT_EQ(field(r, "content"), "AAEC/w==");
    EXPECT_THAT(std::string(field(r, "note").as_string()), HasSubstr("binary"));
    auto lines = host.call("fs_read", R"({"path":"blob.bin","start_line":1})");
    ASSERT_FALSE(lines.ok);
    EXPECT_EQ(lines.error.code, "NOT_TEXT");
}

TEST_F(FsTest, ReadErrors) {
    auto dir = host.call("fs_read", R"({"path":"docs"})");
    ASSERT_FALSE(dir.ok);
    EXPECT_EQ(dir.error.code, "IS_A_DIRECTORY");
    EXPECT_THAT(dir.error.suggestions, Contains(HasSubstr("fs_list")));
    auto missing = host.call("fs_read", R"({"path":"docs/missing.md"})");
    ASSERT_FALSE(missing.ok);
    EXPECT_EQ(missing.error.code, "FILE_NOT_FOUND");
    EXPECT_EQ(json::value_to<std::string>(missing.error.details.at("root")), ws.string());
    EXPECT_THAT(missing.error.suggestions, Contains(HasSubstr("fs_list")));
    auto through_file = host.call("fs_read", R"({"path":"README.md/x"})");
    ASSERT_FALSE(through_file.ok);
    EXPECT_EQ(through_file.error.code, "NOT_A_DIRECTORY");
}

TEST_F(FsTest, SpecialFilesAreNeverOpenedForReading) {
    // A FIFO would block a plain open() forever; the skills must answer at once instead.
    ASSERT_EQ(::mkfifo((ws / "pipe").c_str(), 0600), 0);
    auto r = host.call("fs_read", R"({"path":"pipe"})");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "NOT_A_REGULAR_FILE");
    auto listed = host.call("fs_list", R"({"pattern":"pipe"})");
    ASSERT_TRUE(listed.ok) << output_text(listed);
    EXPECT_EQ(listed.output.at("entries").as_array().at(0).at("type"), "other");
    auto search = host.call("fs_search", R"({"text":"anything"})");
    ASSERT_TRUE(search.ok) << output_text(search);
    auto write = host.call("fs_write", R"({"path":"pipe","content":"x","overwrite":true})");
    ASSERT_FALSE(write.ok);
    EXPECT_EQ(write.error.code, "NOT_A_REGULAR_FILE");
}

TEST_F(FsTest, LineRangeBeyondTheScanLimitIsTooLarge) {
    {
        std::ofstream big(ws / "big.log", std::ios::binary);
        big << std::string(17u << 20, 'a');
    }
    auto r = host.call("fs_read", R"({"path":"big.log","start_line":2})");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "TOO_LARGE");
    EXPECT_THAT(r.error.suggestions, Contains(HasSubstr("max_bytes")));
    // Without a range the same file is simply truncated.
    auto head = host.call("fs_read", R"({"path":"big.log","max_bytes":10})");
    ASSERT_TRUE(head.ok);
    EXPECT_EQ(field(head, "content"), "aaaaaaaaaa");
    EXPECT_EQ(field(head, "truncated"), true);
}

TEST_F(FsTest, WriteCreatesRefusesToClobberAndOverwritesAtomically) {
    auto r = host.call("fs_write", R"({"path":"out/new.txt","content":"one\n","create_dirs":true})");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "created"), true);
    EXPECT_EQ(field(r, "bytes_written"), 4);
    EXPECT_EQ(read_file(ws / "out/new.txt"), "one\n");

    auto again = host.call("fs_write", R"({"path":"out/new.txt","content":"two\n"})");
    ASSERT_FALSE(again.ok);
    EXPECT_EQ(again.error.code, "ALREADY_EXISTS");
    EXPECT_THAT(again.error.suggestions, Contains(HasSubstr("overwrite:true")));
    EXPECT_EQ(read_file(ws / "out/new.txt"), "one\n");

    ::chmod((ws / "out/new.txt").c_str(), 0640);
    auto over = host.call("fs_write", R"({"path":"out/new.txt","content":"two\n","overwrite":true})");
    ASSERT_TRUE(over.ok) << output_text(over);
    EXPECT_EQ(field(over, "overwritten"), true);
    EXPECT_EQ(read_file(ws / "out/new.txt"), "two\n");
    EXPECT_EQ(fs::status(ws / "out/new.txt").permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    // No temporary files are left behind.
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(ws / "out")) names.push_back(e.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"new.txt"});
}

TEST_F(FsTest, WriteErrors) {
    auto no_parent = host.call("fs_write", R"({"path":"a/b/c.txt","content":"x"})");
    ASSERT_FALSE(no_parent.ok);
    EXPECT_EQ(no_parent.error.code, "FILE_NOT_FOUND");
    EXPECT_THAT(no_parent.error.suggestions, Contains(HasSubstr("create_dirs")));
    EXPECT_FALSE(fs::exists(ws / "a"));

    auto dir = host.call("fs_write", R"({"path":"docs","content":"x","overwrite":true})");
    ASSERT_FALSE(dir.ok);
    EXPECT_EQ(dir.error.code, "IS_A_DIRECTORY");
    auto root = host.call("fs_write", R"({"path":".","content":"x","overwrite":true})");
    ASSERT_FALSE(root.ok);
    EXPECT_EQ(root.error.code, "IS_A_DIRECTORY");

    auto through_file = host.call("fs_write", R"({"path":"README.md/x.txt","content":"x","create_dirs":true})");
    ASSERT_FALSE(through_file.ok);
    EXPECT_EQ(through_file.error.code, "NOT_A_DIRECTORY");

    std::string huge((8u << 20) + 1, 'x');
    auto big = host.call("fs_write", R"({"path":"big.txt","content":")" + huge + "\"}");
    ASSERT_FALSE(big.ok);
    EXPECT_EQ(big.error.code, "TOO_LARGE");
    EXPECT_FALSE(fs::exists(ws / "big.txt"));
}

TEST_F(FsTest, SearchByNameAndByText) {
    EXPECT_EQ(paths(host.call("fs_search", R"({"name":"*.md"})"), "results"),
              (std::vector<std::string>{"README.md", "docs/guide.md"}));
    EXPECT_EQ(paths(host.call("fs_search", R"({"name":"docs/*.txt"})"), "results"),
              (std::vector<std::string>{"docs/notes.txt"}));

    auto text = host.call("fs_search", R"({"text":"budget"})");
    EXPECT_EQ(paths(text, "results"), (std::vector<std::string>{"docs/guide.md"}));
    const auto& matches = field(text, "results").as_array().at(0).at("matches").as_array();
    ASSERT_EQ(matches.size(), 2u);
    EXPECT_EQ(matches[0].at("line"), 2);
    EXPECT_EQ(matches[0].at("text"), "the Budget is 42");
    EXPECT_EQ(matches[1].at("line"), 3);

    auto sensitive = host.call("fs_search", R"({"text":"Budget","case_sensitive":true})");
    EXPECT_EQ(field(sensitive, "results").as_array().at(0).at("matches").as_array().size(), 1u);
    EXPECT_EQ(paths(host.call("fs_search", R"({"text":"budget","name":"*.txt"})"), "results"),
              std::vector<std::string>{});
}

TEST_F(FsTest, SearchIsBounded) {
    for (int i = 0; i < 5; ++i) write_file(ws / ("many/f" + std::to_string(i) + ".txt"), "needle\n");
    auto few = host.call("fs_search", R"({"path":"many","text":"needle","max_results":2})");
    EXPECT_EQ(paths(few, "results").size(), 2u);
    EXPECT_EQ(field(few, "truncated"), true);
    auto budget = host.call("fs_search", R"({"path":"many","text":"needle","max_bytes_scanned":14})");
    ASSERT_TRUE(budget.ok);
    EXPECT_LE(field(budget, "bytes_scanned").as_int64(), 14);
    EXPECT_EQ(field(budget, "scan_limit_reached"), true);
    EXPECT_EQ(field(budget, "count"), 2);
}

TEST_F(FsTest, SearchNeedsCriteria) {
    auto r = host.call("fs_search", "{}");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "NO_SEARCH_CRITERIA");
}

TEST_F(FsTest, NoWorkspaceIsAClearError) {
    host.workspace_root.clear();
    for (const auto& [skill, args] :
         std::vector<std::pair<std::string, std::string>>{{"fs_list", "{}"},
                                                          {"fs_read", R"({"path":"x"})"},
                                                          {"fs_write", R"({"path":"x","content":"y"})"},
                                                          {"fs_search", R"({"name":"*"})"}}) {
        auto r = host.call(skill, args);
        ASSERT_FALSE(r.ok) << skill;
        EXPECT_EQ(r.error.code, "NO_WORKSPACE") << skill;
        EXPECT_FALSE(r.error.suggestions.empty()) << skill;
    }
    host.workspace_root = ws / "does-not-exist";
    auto missing = host.call("fs_list", "{}");
    ASSERT_FALSE(missing.ok);
    EXPECT_EQ(missing.error.code, "NO_WORKSPACE");
}

}  // namespace
}  // namespace skillhost::testing
