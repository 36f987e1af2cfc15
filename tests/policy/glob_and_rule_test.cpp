#include "base/glob.hpp"
#include "policy/rule.hpp"
#include "support/unit_testing.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace skillhost::policy {
namespace {

using unit_testing::TempDir;

TEST(Glob, SingleStarStaysWithinOneSegment) {
    EXPECT_TRUE(glob_match("task_*", "task_add"));
    EXPECT_TRUE(glob_match("task_*", "task_"));
    EXPECT_FALSE(glob_match("task_*", "tasks"));
    EXPECT_TRUE(glob_match("*", "anything"));
    EXPECT_FALSE(glob_match("*", "a/b"));
    EXPECT_TRUE(glob_match("notes/*", "notes/a.txt"));
    EXPECT_FALSE(glob_match("notes/*", "notes/sub/a.txt"));
    EXPECT_TRUE(glob_match("*.md", "readme.md"));
    EXPECT_FALSE(glob_match("*.md", "docs/readme.md"));
}

TEST(Glob, DoubleStarCrossesSegments) {
    EXPECT_TRUE(glob_match("notes/**", "notes/a.txt"));
    EXPECT_TRUE(glob_match("notes/**", "notes/sub/deeper/a.txt"));
    EXPECT_FALSE(glob_match("notes/**", "notesX/a.txt"));
    EXPECT_FALSE(glob_match("notes/**", "other/notes/a.txt"));
    EXPECT_TRUE(glob_match("**/*.key", "a/b/c.key"));
    EXPECT_TRUE(glob_match("**/*.key", "c.key"));  // `**/` may match no directory
    EXPECT_TRUE(glob_match("**", "a/b/c"));
    EXPECT_TRUE(glob_match("a/**/z", "a/z"));
    EXPECT_TRUE(glob_match("a/**/z", "a/b/c/z"));
}

TEST(Glob, QuestionMarkAndLiterals) {
    EXPECT_TRUE(glob_match("fs_rea?", "fs_read"));
    EXPECT_FALSE(glob_match("fs_rea?", "fs_rea"));
    EXPECT_FALSE(glob_match("a?b", "a/b"));
    EXPECT_TRUE(glob_match("fs_write", "fs_write"));
    EXPECT_FALSE(glob_match("fs_write", "fs_writer"));
    EXPECT_TRUE(glob_match("", ""));
    EXPECT_FALSE(glob_match("", "x"));
}

TEST(Glob, PathologicalPatternsStayFast) {
    const std::string text(200, 'a');
    EXPECT_FALSE(glob_match("**a**a**a**a**a**a**b", text));
    EXPECT_FALSE(glob_match("*a*a*a*a*a*a*a*a*b", text));
}

Rule rule(std::string_view text) {
    Rule r;
    EXPECT_FALSE(parse_rule_text(text, r).has_value()) << text;
    return r;
}

TEST(RuleMatching, SkillGlobAndAllArgumentPatternsMustMatch) {
    const auto spec = unit_testing::fs_write_skill();
    const auto args =
        boost::json::parse(R"({"path":"notes/today.md","content":"hi","mode":"append","count":3,"force":true})");
    const CallArguments call(args, spec, {});
    EXPECT_TRUE(rule_matches(rule("fs_write"), "fs_write", call));
    EXPECT_TRUE(rule_matches(rule("fs_*"), "fs_write", call));
    EXPECT_FALSE(rule_matches(rule("task_*"), "fs_write", call));
    EXPECT_TRUE(rule_matches(rule("fs_write(path=notes/**)"), "fs_write", call));
    EXPECT_FALSE(rule_matches(rule("fs_write(path=secrets/**)"), "fs_write", call));
    EXPECT_TRUE(rule_matches(rule("fs_write(path=notes/*, mode=append)"), "fs_write", call));
    EXPECT_FALSE(rule_matches(rule("fs_write(path=notes/*, mode=overwrite)"), "fs_write", call));
    // Non-strings match on their JSON text.
    EXPECT_TRUE(rule_matches(rule("fs_write(count=3, force=true)"), "fs_write", call));
    EXPECT_FALSE(rule_matches(rule("fs_write(count=4)"), "fs_write", call));
    // An argument that is absent never matches, not even `**`.
    EXPECT_FALSE(rule_matches(rule("fs_write(owner=**)"), "fs_write", call));
}

TEST(RuleMatching, ClaudeCodesSpellingOfMcpToolsNamesTheForeignSkills) {
    const auto spec = unit_testing::fs_write_skill();
    const auto args = boost::json::parse(R"({"path":"a.md"})");
    const CallArguments call(args, spec, {});
    EXPECT_EQ(rule("mcp__github__create_issue").skill_pattern, "github__create_issue");
    EXPECT_TRUE(rule_matches(rule("mcp__github__create_issue"), "github__create_issue", call));
    // `mcp__SERVER` is every tool of that server, and only of that server.
    EXPECT_TRUE(rule_matches(rule("mcp__github"), "github__delete_repo", call));
    EXPECT_FALSE(rule_matches(rule("mcp__github"), "githubber__x", call));
    EXPECT_EQ(rule("mcp__files__read_*(path=**/secret*)").skill_pattern, "files__read_*");
}

TEST(RuleMatching, AnArrayOfPathsMatchesDenyOnAnyElementAndAllowOnlyOnEvery) {
    auto spec = unit_testing::fs_write_skill();
    spec.path_inputs = {"paths[]"};
    Rule deny_rule = rule(spec.id + "(paths=secret/**)");
    Rule allow_rule = rule(spec.id + "(paths=notes/**)");
    allow_rule.kind = RuleKind::allow;
    const auto matches = [&](const Rule& r, const char* args_json) {
        const auto args = boost::json::parse(args_json);
        return rule_matches(r, spec.id, CallArguments(args, spec, "/ws"));
    };
    EXPECT_TRUE(matches(deny_rule, R"({"paths":["notes/a","secret/b"]})"));
    EXPECT_FALSE(matches(deny_rule, R"({"paths":["notes/a"]})"));
    EXPECT_TRUE(matches(deny_rule, R"({"paths":["notes/../secret/b"]})")) << "normalised like a single path";
    EXPECT_TRUE(matches(allow_rule, R"({"paths":["notes/a","notes/b"]})"));
    EXPECT_FALSE(matches(allow_rule, R"({"paths":["notes/a","secret/b"]})"));
    EXPECT_FALSE(matches(allow_rule, R"({"paths":[]})")) << "an empty list is allowed by nothing";
    EXPECT_FALSE(matches(allow_rule, R"({"paths":["notes/a",7]})"));
}

TEST(RuleMatching, PathArgumentsAreNormalisedSoTraversalCannotDodgeARule) {
    TempDir dir;
    const auto workspace = dir.path() / "ws";
    std::filesystem::create_directories(workspace / "notes");
    std::filesystem::create_directories(workspace / "secrets");
    const auto spec = unit_testing::fs_write_skill();
    const Rule deny_secrets = rule("fs_write(path=secrets/**)");
    const Rule allow_notes = rule("fs_write(path=notes/**)");
    auto check = [&](const char* path) {
        boost::json::value args = {{"path", path}, {"content", "x"}};
        const CallArguments call(args, spec, workspace);
        return std::pair{rule_matches(deny_secrets, "fs_write", call), rule_matches(allow_notes, "fs_write", call)};
    };
    EXPECT_EQ(check("notes/a.md"), std::pair(false, true));
    EXPECT_EQ(check("./notes/a.md"), std::pair(false, true));
    EXPECT_EQ(check("notes/../secrets/key"), std::pair(true, false));
    EXPECT_EQ(check((workspace / "secrets/key").c_str()), std::pair(true, false));
    EXPECT_EQ(check("../outside/notes/x"), std::pair(false, false));
    // A symlink inside notes/ that points into secrets/ is matched where it really leads.
    std::filesystem::create_directory_symlink(workspace / "secrets", workspace / "notes/link");
    EXPECT_EQ(check("notes/link/key"), std::pair(true, false));
}

TEST(RuleMatching, ARuleOnADirectorysInsideCoversTheDirectoryItself) {
    TempDir dir;
    const auto workspace = dir.path() / "ws";
    std::filesystem::create_directories(workspace / "home/.ssh");
    const auto spec = unit_testing::fs_write_skill();
    auto denied = [&](const char* pattern, const char* path) {
        boost::json::value args = {{"path", path}, {"content", "x"}};
        return rule_matches(rule(pattern), "fs_write", CallArguments(args, spec, workspace));
    };
    EXPECT_TRUE(denied("fs_write(path=**/.ssh/**)", ".ssh"));
    EXPECT_TRUE(denied("fs_write(path=**/.ssh/**)", "home/.ssh"));
    EXPECT_TRUE(denied("fs_write(path=**/.ssh/**)", "home/.ssh/"));
    EXPECT_TRUE(denied("fs_write(path=secrets/**)", "secrets"));
    EXPECT_FALSE(denied("fs_write(path=**/.ssh/**)", "home"));
    EXPECT_FALSE(denied("fs_write(path=**/.ssh/**)", ".sshx"));
    EXPECT_FALSE(denied("fs_write(path=**/*.pem)", "."));
    // Only path inputs: a plain string argument is matched as written.
    auto note = unit_testing::make_skill("note_add");
    boost::json::value args = {{"title", "secrets"}};
    EXPECT_FALSE(rule_matches(rule("note_add(title=secrets/**)"), "note_add", CallArguments(args, note, {})));
}

TEST(RuleMatching, NonPathArgumentsAreMatchedVerbatim) {
    auto spec = unit_testing::make_skill("note_add");
    boost::json::value args = {{"title", "notes/../secrets"}};
    const CallArguments call(args, spec, {});
    EXPECT_TRUE(rule_matches(rule("note_add(title=notes/../secrets)"), "note_add", call));
    EXPECT_FALSE(rule_matches(rule("note_add(title=secrets)"), "note_add", call));
}

TEST(RuleMatching, ArgumentsThatAreNotAnObjectNeverMatchPatterns) {
    auto spec = unit_testing::make_skill("x");
    boost::json::value args = boost::json::array{1, 2};
    const CallArguments call(args, spec, {});
    EXPECT_TRUE(rule_matches(rule("x"), "x", call));
    EXPECT_FALSE(rule_matches(rule("x(a=**)"), "x", call));
}

}  // namespace
}  // namespace skillhost::policy
