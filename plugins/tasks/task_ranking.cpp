#include "task_ranking.hpp"

#include <algorithm>
#include <cctype>

namespace skillhost_builtin::tasks {

namespace {

bool is_word_byte(unsigned char c) {
    return std::isalnum(c) || c >= 0x80;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::vector<std::string> query_terms(std::string_view query) {
    std::vector<std::string> terms;
    std::string current;
    auto flush = [&] {
        if (!current.empty() && std::find(terms.begin(), terms.end(), current) == terms.end()) terms.push_back(current);
        current.clear();
    };
    for (char c : query) {
        if (is_word_byte(static_cast<unsigned char>(c)))
            current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else
            flush();
    }
    flush();
    return terms;
}

std::vector<RankedTask> rank_tasks(const std::vector<Task>& tasks, std::string_view query) {
    const std::vector<std::string> terms = query_terms(query);
    std::string phrase = lower(query);
    while (!phrase.empty() && std::isspace(static_cast<unsigned char>(phrase.back()))) phrase.pop_back();
    while (!phrase.empty() && std::isspace(static_cast<unsigned char>(phrase.front()))) phrase.erase(0, 1);

    std::vector<RankedTask> ranked;
    for (const Task& task : tasks) {
        const std::string title = lower(task.title);
        const std::string notes = lower(task.notes);
        const std::vector<std::string> title_words = query_terms(task.title);
        RankedTask r;
        r.task = &task;
        bool in_title = false, in_tags = false, in_notes = false;
        std::size_t terms_matched = 0;
        if (terms.size() > 1 && title.find(phrase) != std::string::npos) {
            r.score += 8;
            in_title = true;
        }
        for (const auto& term : terms) {
            bool matched = false;
            if (std::find(title_words.begin(), title_words.end(), term) != title_words.end()) {
                r.score += 4;
                matched = in_title = true;
            } else if (title.find(term) != std::string::npos) {
                r.score += 2;
                matched = in_title = true;
            }
            if (std::find(task.tags.begin(), task.tags.end(), term) != task.tags.end()) {
                r.score += 3;
                matched = in_tags = true;
            }
            if (notes.find(term) != std::string::npos) {
                r.score += 1;
                matched = in_notes = true;
            }
            if (matched) ++terms_matched;
        }
        if (terms_matched == 0) continue;
        if (terms_matched == terms.size()) r.score += 2;
        if (task.status == "open" || task.status == "in_progress") r.score += 0.5;
        if (in_title) r.matched_fields.push_back("title");
        if (in_tags) r.matched_fields.push_back("tags");
        if (in_notes) r.matched_fields.push_back("notes");
        ranked.push_back(std::move(r));
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const RankedTask& a, const RankedTask& b) {
        if (a.score != b.score) return a.score > b.score;
        return a.task->updated_at > b.task->updated_at;
    });
    return ranked;
}

}  // namespace skillhost_builtin::tasks
