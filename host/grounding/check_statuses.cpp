// Statements about items' statuses in an answer ("all tasks are done", "the report is still open"),
// against the statuses the observations give.
#include "grounding/answer_under_check.hpp"
#include "grounding/claim_lexer.hpp"
#include "grounding/claim_vocabulary.hpp"

#include <set>

namespace skillhost::grounding::detail {
namespace {

class StatusCheck : ClaimCheck {
public:
    using ClaimCheck::ClaimCheck;
    void run() { check_statuses(); }

private:
    void check_statuses() {
        if (f_.status_items.empty()) return;
        std::vector<std::size_t> group;
        for (std::size_t i = 0; i <= tokens_.size(); ++i) {
            const bool split =
                i == tokens_.size() || (!group.empty() && tokens_[i].clause != tokens_[group.back()].clause) ||
                one_of(tokens_[i].norm, {"and", "but", "while", "whereas", "although", "though", "however"});
            if (split) {
                if (!group.empty()) status_group(group);
                group.clear();
                if (i < tokens_.size() && tokens_[i].kind == Token::Kind::word &&
                    one_of(tokens_[i].norm, {"and", "but", "while", "whereas", "although", "though", "however"})) {
                    continue;
                }
            }
            if (i < tokens_.size()) group.push_back(i);
        }
    }

    struct StatusWord {
        std::size_t token;
        std::string status;
        bool negated;
    };

    void status_group(const std::vector<std::size_t>& group) {
        std::vector<StatusWord> words;
        std::set<std::string> stems, norms;
        bool universal = false, none = false, all_clear = false;
        for (std::size_t g = 0; g < group.size(); ++g) {
            const Token& t = tokens_[group[g]];
            if (t.kind != Token::Kind::word) continue;
            norms.insert(t.norm);
            if (t.norm.size() >= 3) stems.insert(stem(t.norm));
            const std::string previous = g > 0 ? tokens_[group[g - 1]].norm : std::string();
            std::string status = canonical_status(t.norm);
            if (t.norm == "progress" && previous == "in") status = "in_progress";
            if (one_of(t.norm, {"all", "every", "everything", "each"}) && !one_of(previous, {"not", "t"}))
                universal = true;
            if (one_of(t.norm, {"no", "none", "nothing", "zero"})) none = true;
            if ((t.norm == "up" && previous == "caught") ||
                (previous == "nothing" &&
                 one_of(t.norm, {"left", "to", "remaining", "outstanding", "pending", "open"})) ||
                (previous == "all" && t.norm == "clear")) {
                all_clear = true;
            }
            if (status.empty()) continue;
            bool negated = false;
            for (std::size_t back = 1; back <= 3 && back <= g; ++back) {
                negated = negated || one_of(tokens_[group[g - back]].norm, {"not", "t", "never", "nor"});
            }
            words.push_back({group[g], status, negated});
        }
        if (words.empty() && !all_clear) return;
        std::vector<const GroundingFacts::StatusItem*> mentioned;
        for (const auto& item : f_.status_items) {
            std::size_t matched = 0;
            for (const auto& s : item.stems) matched += stems.contains(s) ? 1 : 0;
            if (!item.stems.empty() && (matched >= 2 || matched == item.stems.size())) mentioned.push_back(&item);
        }
        const std::string text = span(group.front(), group.back());
        if (!mentioned.empty() && !universal && !none && !all_clear) {
            for (const auto* item : mentioned) {
                bool consistent = false;
                for (const auto& w : words) consistent = consistent || ((w.status == item->status) != w.negated);
                if (!consistent) {
                    report("status", text, "\"" + item->title + "\" has status " + item->status);
                }
            }
            return;
        }
        if (!mentioned.empty()) return;
        // Statements about every item: filtered by the group's values ("all your high-priority tasks").
        std::vector<std::string> qualifiers;
        for (const auto& n : norms) {
            if (f_.group_values.contains(n) && canonical_status(n).empty() && n != "in_progress")
                qualifiers.push_back(n);
        }
        const auto selected = [&](const GroundingFacts::StatusItem& item) {
            for (const auto& q : qualifiers) {
                if (!item.values.contains(q)) return false;
            }
            return true;
        };
        if (all_clear || none) {
            std::set<std::string> targets;
            if (all_clear) targets = {"open", "in_progress"};
            for (const auto& w : words) {
                if (!w.negated) targets.insert(w.status);
            }
            for (const auto& item : f_.status_items) {
                if (selected(item) && targets.contains(item.status)) {
                    report("status", text, "\"" + item.title + "\" has status " + item.status);
                    return;
                }
            }
            return;
        }
        if (!universal) return;
        for (const auto& w : words) {
            if (w.negated) continue;
            std::size_t total = 0, other = 0;
            const GroundingFacts::StatusItem* example = nullptr;
            for (const auto& item : f_.status_items) {
                if (!selected(item)) continue;
                ++total;
                if (item.status != w.status) {
                    ++other;
                    if (!example) example = &item;
                }
            }
            if (example) {
                report("status", text,
                       std::to_string(other) + " of " + std::to_string(total) + " are not " + w.status + " (\"" +
                           example->title + "\" has status " + example->status + ")");
                return;
            }
        }
    }
};

}  // namespace

void check_statuses(AnswerUnderCheck& answer) {
    StatusCheck(answer).run();
}

}  // namespace skillhost::grounding::detail
