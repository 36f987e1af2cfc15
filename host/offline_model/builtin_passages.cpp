#include "offline_model/builtin_passages.hpp"

#include "language/text_scan.hpp"

#include <algorithm>
#include <set>

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxPassageChars = 300;

// The sentences of a line: cut after ". ", "; ", "? ", "! " (a full stop inside "06:00" or "v1.2" stays).
std::vector<std::string> sentences_of(std::string_view line) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        const bool ends =
            (c == '.' || c == ';' || c == '?' || c == '!') && (i + 1 == line.size() || line[i + 1] == ' ');
        if (!ends && i + 1 != line.size()) continue;
        std::string sentence = trim(line.substr(start, i + 1 - start), " \t\r\n-*#>;");
        if (!sentence.empty()) out.push_back(std::move(sentence));
        start = i + 1;
    }
    return out;
}

bool has_digit(std::string_view text) {
    return std::any_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool has_value(Wanted wanted, std::string_view text) {
    const std::string lower = lowercase(text);
    switch (wanted) {
        case Wanted::when:
            return has_digit(text) ||
                   has_any_phrase(lower,
                                  {"monday",  "tuesday",   "wednesday", "thursday", "friday",   "saturday", "sunday",
                                   "january", "february",  "march",     "april",    "may",      "june",     "july",
                                   "august",  "september", "october",   "november", "december", "today",    "tomorrow",
                                   "tonight", "week",      "month",     "daily",    "weekly",   "every"});
        case Wanted::amount:
            return has_digit(text) || has_any_phrase(lower, {"two", "three", "four", "five", "six", "seven", "eight",
                                                             "nine", "ten", "dozen", "hundred", "thousand"});
        case Wanted::who:
            for (std::size_t i = 1; i < text.size(); ++i) {
                if (text[i - 1] == ' ' && text[i] >= 'A' && text[i] <= 'Z') return true;
            }
            return false;
        case Wanted::any: break;
    }
    return false;
}

}  // namespace

bool same_word(const std::string& a, const std::string& b) {
    if (a == b) return true;
    constexpr std::size_t kStem = 5, kPrefix = 4;
    if (a.size() >= kStem && b.size() >= kStem) return a.compare(0, kStem, b, 0, kStem) == 0;
    const std::string& shorter = a.size() < b.size() ? a : b;
    const std::string& longer = a.size() < b.size() ? b : a;
    return shorter.size() >= kPrefix && longer.starts_with(shorter);
}

int words_matched(const std::vector<std::string>& keys, const std::vector<std::string>& words) {
    int matched = 0;
    for (const auto& key : keys) {
        if (std::any_of(words.begin(), words.end(), [&](const std::string& w) { return same_word(key, w); })) {
            ++matched;
        }
    }
    return matched;
}

std::string text_of(const json::value& value) {
    if (value.is_string()) return std::string(value.as_string());
    if (value.is_int64()) return std::to_string(value.as_int64());
    if (value.is_uint64()) return std::to_string(value.as_uint64());
    return {};
}

Wanted wanted_of(const GoalAnalysis& goal) {
    if (starts_with_any_phrase(goal.lower, {"when", "what time", "what day", "what date", "how often", "by when"})) {
        return Wanted::when;
    }
    if (starts_with_any_phrase(goal.lower, {"how much", "how many", "what is the cost", "what does it cost"})) {
        return Wanted::amount;
    }
    if (starts_with_any_phrase(goal.lower, {"who"})) return Wanted::who;
    return Wanted::any;
}

void PassageFinder::add(std::string text, std::string source, std::string_view context, std::string shown) {
    auto words = keywords_of(text);
    if (!shown.empty()) text = std::move(shown);
    if (text.size() > kMaxPassageChars) {
        std::size_t cut = kMaxPassageChars;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
        text.resize(cut);
        text += "…";
    }
    Passage passage{std::move(text), std::move(source), {}, false, 0};
    for (auto& word : keywords_of(context)) words.push_back(std::move(word));
    bool any = false;
    for (const auto& key : keys) {
        const bool found =
            std::any_of(words.begin(), words.end(), [&](const std::string& w) { return same_word(key, w); });
        passage.has.push_back(found);
        any = any || found;
    }
    if (!any) return;
    passage.has_value = has_value(wanted, passage.text);
    passages.push_back(std::move(passage));
}

// Scores the passages: each of the question's words counts by how rare it is among them (a
// word every passage has says little), and having the kind of value asked for breaks ties.
void PassageFinder::rank() {
    std::vector<std::size_t> frequency(keys.size(), 0);
    std::set<std::string> counted;
    for (const auto& passage : passages) {
        if (!counted.insert(lowercase(passage.text)).second) continue;
        for (std::size_t k = 0; k < keys.size(); ++k) frequency[k] += passage.has[k] ? 1 : 0;
    }
    constexpr double kValueBonus = 0.01;
    for (auto& passage : passages) {
        passage.score = passage.has_value ? kValueBonus : 0;
        for (std::size_t k = 0; k < keys.size(); ++k) {
            if (passage.has[k]) passage.score += 1.0 / static_cast<double>(frequency[k]);
        }
    }
    std::stable_sort(passages.begin(), passages.end(),
                     [](const Passage& a, const Passage& b) { return a.score > b.score; });
}

// A file's lines: CSV-like rows whole (with the header row named), prose cut into sentences, a
// Markdown heading matched by its own words and quoted with the lines of its section.
void PassageFinder::add_file(const std::string& path, std::string_view content) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start <= content.size();) {
        auto end = content.find('\n', start);
        if (end == std::string_view::npos) end = content.size();
        lines.push_back(content.substr(start, end - start));
        start = end + 1;
    }
    const bool table = path.ends_with(".csv") || path.ends_with(".tsv");
    const std::string header = table && !lines.empty() ? trim(lines.front(), " \t\r\n") : std::string();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string where = path + ", line " + std::to_string(i + 1);
        const std::string line = trim(lines[i], " \t\r\n");
        if (line.empty()) continue;
        if (table) {
            if (i > 0) add(line, where + (header.empty() ? "" : "; columns " + header), path);
        } else if (line.front() == '#') {
            add(trim(line, " \t#"), where, path, heading_section(lines, i));
        } else {
            for (auto& sentence : sentences_of(line)) add(std::move(sentence), where, path);
        }
    }
}

// "Team: Maya (product), Tomás (backend), Priya (mobile)." for "## Team" and the lines under it
// (at most three, up to the next heading).
std::string PassageFinder::heading_section(const std::vector<std::string_view>& lines, std::size_t at) {
    constexpr std::size_t kSectionLines = 3;
    std::string section;
    std::size_t taken = 0;
    for (std::size_t i = at + 1; i < lines.size() && taken < kSectionLines; ++i) {
        const std::string line = trim(lines[i], " \t\r\n");
        if (line.empty()) continue;
        if (line.front() == '#') break;
        section += (section.empty() ? "" : " ") + trim(line, " \t-*");
        ++taken;
    }
    return section.empty() ? std::string() : trim(lines[at], " \t\r\n#") + ": " + section;
}

// A search result: its matching lines (files), or its own text (memories, tasks, notes).
void PassageFinder::add_item(const Step& step, const json::object& item) {
    const std::string path = item.contains("path") ? text_of(item.at("path")) : std::string();
    if (const auto* matches = item.if_contains("matches"); matches && matches->is_array() && !path.empty()) {
        for (const auto& match : matches->as_array()) {
            if (!match.is_object()) continue;
            const auto& m = match.as_object();
            const std::string line = m.contains("line") ? text_of(m.at("line")) : std::string();
            const std::string text = m.contains("text") ? text_of(m.at("text")) : std::string();
            for (auto& sentence : sentences_of(text)) {
                add(std::move(sentence), path + (line.empty() ? "" : ", line " + line), path);
            }
        }
        return;
    }
    // A record (a memory, a task) is quoted whole: its text or title, and its notes apart.
    const std::string id = item.contains("id") ? text_of(item.at("id")) : std::string();
    std::string source = step.tool + (id.empty() ? "" : ", id " + id);
    // "When did I call the insurer?": the record's time is the answer.
    if (wanted == Wanted::when) {
        for (const char* field : {"timestamp", "due", "date", "when"}) {
            if (const auto* value = item.if_contains(field); value && value->is_string()) {
                source += ", " + std::string(field) + " " + std::string(value->as_string());
                break;
            }
        }
    }
    for (const char* field : {"text", "title", "summary", "content", "name"}) {
        if (const auto* value = item.if_contains(field); value && value->is_string() && !value->as_string().empty()) {
            add(std::string(value->as_string()), source);
            break;
        }
    }
    for (const char* field : {"notes", "description"}) {
        if (const auto* value = item.if_contains(field); value && value->is_string() && !value->as_string().empty()) {
            add(std::string(value->as_string()), source);
        }
    }
}

}  // namespace skillhost::offline_model
