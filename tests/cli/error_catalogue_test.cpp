// The error catalogue against docs/http-api.md: every code the API answers with is documented with
// the status its kind gives, and the document names no code that does not exist.
#include "cli/error_catalogue.hpp"
#include "server/api_error.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace skillhost {
namespace {

std::string read_doc() {
    std::ifstream in(std::string(SKILLHOST_SOURCE_DIR) + "/docs/http-api.md");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool is_code_text(std::string_view text) {
    if (text.empty() || text.front() < 'A' || text.front() > 'Z') return false;
    for (char c : text)
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

// Words in backquotes that are written like codes but are not: HTTP methods, environment variables.
bool is_other_word(std::string_view text) {
    static const std::set<std::string_view> methods{"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"};
    return methods.count(text) > 0 || text.starts_with("SKILLHOST_");
}

std::vector<std::string> backquoted(std::string_view text) {
    std::vector<std::string> out;
    for (std::size_t at = text.find('`'); at != std::string_view::npos;) {
        const std::size_t end = text.find('`', at + 1);
        if (end == std::string_view::npos) break;
        out.emplace_back(text.substr(at + 1, end - at - 1));
        at = text.find('`', end + 1);
    }
    return out;
}

unsigned status_of(ErrorKind kind) {
    return static_cast<unsigned>(server::status_for(kind));
}

// Every HTTP status a code may answer with (a name declared under two kinds has two).
std::map<std::string, std::set<unsigned>> statuses_by_code() {
    std::map<std::string, std::set<unsigned>> out;
    for (const auto& row : cli::error_catalogue()) out[std::string(row.code.name)].insert(status_of(row.code.kind));
    return out;
}

// The rows of every status table (the endpoints' and the one under Errors): status -> the codes and
// patterns (`FIELD_*`) listed.
std::map<unsigned, std::vector<std::string>> status_table(const std::string& doc) {
    std::map<unsigned, std::vector<std::string>> rows;
    std::istringstream lines(doc);
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.starts_with("| `") || line.size() < 8) continue;
        const std::string status = line.substr(3, 3);
        if (status.find_first_not_of("0123456789") != std::string::npos) continue;
        for (const auto& word : backquoted(line.substr(7))) rows[std::stoul(status)].push_back(word);
    }
    return rows;
}

bool matches(std::string_view pattern, std::string_view code) {
    const auto star = pattern.find('*');
    if (star == std::string_view::npos) return pattern == code;
    const auto head = pattern.substr(0, star);
    const auto tail = pattern.substr(star + 1);
    return code.size() >= head.size() + tail.size() && code.starts_with(head) && code.ends_with(tail);
}

TEST(ErrorCatalogue, EveryNameIsDeclaredOncePerKind) {
    std::set<std::pair<std::string, ErrorKind>> seen;
    std::map<std::string, int> names;
    for (const auto& row : cli::error_catalogue()) {
        EXPECT_TRUE(is_code_text(row.code.name)) << row.code.name;
        EXPECT_TRUE(seen.emplace(std::string(row.code.name), row.code.kind).second)
            << row.code.name << " is declared twice with kind " << to_string(row.code.kind);
        ++names[std::string(row.code.name)];
    }
    // The two whose status depends on the cause, and no other.
    for (const auto& [name, count] : names) {
        if (count > 1) {
            EXPECT_TRUE(name == "DATABASE_ERROR" || name == "TOO_MANY_STREAMS") << name;
        }
    }
}

TEST(ErrorCatalogue, EveryCodeTheDocumentNamesExists) {
    const auto known = statuses_by_code();
    for (const auto& word : backquoted(read_doc())) {
        if (!is_code_text(word) || is_other_word(word)) continue;
        EXPECT_TRUE(known.count(word)) << "docs/http-api.md names " << word << ", which no error_codes.hpp declares";
    }
}

TEST(ErrorCatalogue, EveryStatusTheDocumentGivesACodeIsTheStatusOfItsKind) {
    const std::string doc = read_doc();
    const auto known = statuses_by_code();
    // The status tables. A 200 lists what a skill that ran may fail with: its result, not the answer.
    for (const auto& [status, words] : status_table(doc)) {
        if (status == 200) continue;
        for (const auto& word : words) {
            if (!is_code_text(word) || is_other_word(word)) continue;
            const auto it = known.find(word);
            if (it == known.end()) continue;  // reported by EveryCodeTheDocumentNamesExists
            EXPECT_TRUE(it->second.count(status)) << word << " is listed under " << status << " in docs/http-api.md";
        }
    }
    // "`409 RUN_BUSY`" anywhere in the text.
    for (const auto& word : backquoted(doc)) {
        if (word.size() < 5 || word[3] != ' ' || word.substr(0, 3).find_first_not_of("0123456789") != std::string::npos)
            continue;
        const std::string code = word.substr(4);
        const auto it = known.find(code);
        if (!is_code_text(code) || it == known.end()) continue;
        EXPECT_TRUE(it->second.count(std::stoul(word.substr(0, 3)))) << "docs/http-api.md says `" << word << "`";
    }
}

// The daemon's start-up failures: `skillhost serve` reports them and exits; no request gets them.
bool is_startup_code(std::string_view code) {
    return code == "BIND_FAILED" || code == "REMOTE_BIND_NOT_ALLOWED" || code == "TOKEN_FILE_UNWRITABLE";
}

TEST(ErrorCatalogue, EveryCodeOfTheServerIsInTheStatusTableUnderItsStatus) {
    const auto table = status_table(read_doc());
    for (const auto& row : cli::error_catalogue()) {
        const unsigned status = status_of(row.code.kind);
        // A 500 is "anything else" in the table, and the answer hides the code's message.
        if (row.subsystem != "server" || status == 500 || is_startup_code(row.code.name)) continue;
        bool listed = false;
        if (const auto it = table.find(status); it != table.end()) {
            for (const auto& word : it->second) listed = listed || matches(word, row.code.name);
        }
        EXPECT_TRUE(listed) << row.code.name << " (" << to_string(row.code.kind) << ") is not listed under " << status
                            << " in the status table of docs/http-api.md";
    }
}

TEST(ErrorCatalogue, EveryKindHasAStatusOfItsOwnMeaning) {
    // pending is the only kind that is not a failure of the request: it was accepted.
    for (ErrorKind kind : kAllErrorKinds) {
        const unsigned status = status_of(kind);
        if (kind == ErrorKind::pending) {
            EXPECT_EQ(status, 202u);
        } else {
            EXPECT_GE(status, 400u) << to_string(kind);
        }
    }
}

}  // namespace
}  // namespace skillhost
