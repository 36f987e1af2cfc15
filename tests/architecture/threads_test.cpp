// The thread rule of docs/architecture.md ("Threads and lifetimes"), enforced over the source tree:
// no thread the host, its runner, the SDK or a built-in plugin starts is ever detached. A thread
// that may be stuck in code that cannot be interrupted belongs to base/uninterruptible_threads.
#include "source_lines.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// "file:line: text" for each line that detaches a thread (`.detach()`, `->detach()`, or
// pthread_detach), outside lines that are comments.
std::vector<std::string> detaching_lines(const fs::path& root) {
    std::vector<std::string> found;
    skillhost::architecture::for_each_source_line(
        root, [&](const fs::path& file, std::size_t number, const std::string& line) {
            const auto code = line.find_first_not_of(" \t");
            if (code == std::string::npos || line.compare(code, 2, "//") == 0 || line.compare(code, 1, "*") == 0)
                return;
            if (line.find("detach()") != std::string::npos || line.find("pthread_detach") != std::string::npos)
                found.push_back(file.lexically_relative(SKILLHOST_SOURCE_DIR).string() + ":" + std::to_string(number) +
                                ": " + line.substr(code));
        });
    return found;
}

TEST(ThreadRule, NoThreadIsDetached) {
    std::vector<std::string> found;
    for (const char* root : {"host", "sdk", "plugins"}) {
        const auto more = detaching_lines(fs::path(SKILLHOST_SOURCE_DIR) / root);
        found.insert(found.end(), more.begin(), more.end());
    }
    std::string listing;
    for (const auto& line : found) listing += "  " + line + "\n";
    EXPECT_TRUE(found.empty()) << "detached threads (own them with base/owned_threads.hpp, or with "
                                  "base/uninterruptible_threads.hpp when they may be stuck in a plugin):\n"
                               << listing;
}

// The rule's scanner finds what it looks for (a rule that cannot fail proves nothing).
TEST(ThreadRule, TheScannerFindsADetach) {
    const fs::path dir = fs::temp_directory_path() /
                         ("thread-rule-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::create_directories(dir);
    std::ofstream(dir / "a.cpp")
        << "// thread.detach() in a comment is fine\nvoid f(std::thread& t) {\n    t.detach();\n}\n";
    const auto found = detaching_lines(dir);
    fs::remove_all(dir);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].find(":3: t.detach();"), std::string::npos) << found[0];
}

}  // namespace
