// Text an answer says the observations hold: URLs, e-mail addresses, paths, codes, quoted strings,
// proper names and list items.
#include "grounding/answer_under_check.hpp"
#include "grounding/claim_lexer.hpp"
#include "grounding/claim_vocabulary.hpp"

#include <algorithm>

namespace skillhost::grounding::detail {
namespace {

constexpr std::size_t kMaxQuoteBytes = 300;

class QuotedTextCheck : ClaimCheck {
public:
    using ClaimCheck::ClaimCheck;
    void run() {
        check_tokens();
        check_quotes();
        check_names();
        check_list_items();
    }

private:
    // ---- URLs, e-mail addresses, paths, codes ----

    void check_tokens() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            const Token& t = tokens_[i];
            switch (t.kind) {
                case Token::Kind::url: {
                    bool ok = f_.urls.contains(t.norm);
                    for (auto it = f_.urls.begin(); !ok && it != f_.urls.end(); ++it) {
                        ok = it->starts_with(t.norm + "/") || it->starts_with(t.norm + "?");
                    }
                    if (!ok) report("url", t.text, "no observation has this URL");
                    break;
                }
                case Token::Kind::email:
                    if (!f_.emails.contains(t.norm)) report("email", t.text, "no observation has this e-mail address");
                    break;
                case Token::Kind::path: {
                    std::string norm = t.norm;
                    while (norm.starts_with("/")) norm.erase(0, 1);
                    if (!f_.paths.contains(t.norm) && !f_.paths.contains(norm)) {
                        report("path", t.text, "no observation has this path");
                    }
                    break;
                }
                case Token::Kind::code:
                    if (!f_.has_word(t.norm) && !f_.codes.contains(t.norm))
                        report("code", t.text, "no observation has it");
                    break;
                default: break;
            }
        }
    }

    // ---- quoted strings ----

    void check_quotes() {
        std::size_t i = 0;
        while (i < answer_.size()) {
            std::string_view open, close;
            const std::string_view rest = answer_.substr(i);
            if (rest.starts_with("\"")) {
                open = close = "\"";
            } else if (rest.starts_with("\u201C")) {
                open = "\u201C";
                close = "\u201D";
            } else if (rest.starts_with("`")) {
                open = close = "`";
            } else {
                ++i;
                continue;
            }
            const std::size_t start = i + open.size();
            const std::string_view window = answer_.substr(start, kMaxQuoteBytes);
            const std::size_t end = window.find(close);
            const std::size_t newline = window.find('\n');
            if (end == std::string_view::npos || (newline != std::string_view::npos && newline < end)) {
                i = start;
                continue;
            }
            quote(window.substr(0, end));
            i = start + end + close.size();
        }
    }

    void quote(std::string_view content) {
        std::vector<std::string> norms;
        for (const auto& t : lex(content, 100)) norms.push_back(t.norm);
        if (norms.empty()) return;
        if (!f_.has_phrase(norms))
            report("quote", "\"" + std::string(content) + "\"", "no observation contains this text");
    }

    // ---- proper names ----

    bool name_token(std::size_t i) const {
        const Token& t = tokens_[i];
        return t.kind == Token::Kind::word && !in_value_[i] && (t.capitalised || t.all_caps) && t.norm != "i";
    }

    void check_names() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            if (!name_token(i)) continue;
            std::size_t end = i;
            while (end + 1 < tokens_.size() && name_token(end + 1) && !tokens_[end + 1].punct_before &&
                   tokens_[end + 1].line == tokens_[i].line) {
                ++end;
            }
            // Common words split a run: "The Harbor team" names "Harbor".
            std::size_t piece = i;
            for (std::size_t k = i; k <= end + 1; ++k) {
                const bool boundary =
                    k > end || common(tokens_[k].norm) || f_.list_nouns.contains(singular(tokens_[k].norm));
                if (!boundary) continue;
                if (k > piece) name(piece, k - 1, i);
                piece = k + 1;
            }
            i = end;
        }
    }

    void name(std::size_t first, std::size_t last, std::size_t run_first) {
        // A single capitalised word that starts a sentence may be an ordinary word: it counts as a
        // name only when it is not a common word and no form of it (same stem) is in the data, and
        // it does not look like an English verb or adverb form.
        if (first == run_first && first == last && tokens_[first].sentence_start) {
            if (tokens_[first].item_start) return;  // the list item check covers it
            const std::string& w = tokens_[first].norm;
            if (f_.has_word(w) || f_.has_stem(stem(w))) return;
            for (std::string_view suffix : {"ing", "ed", "ly", "ful", "ness", "tion", "ment", "ies", "able"}) {
                if (w.size() > suffix.size() + 2 && w.ends_with(suffix)) return;
            }
        }
        std::vector<std::string> norms;
        for (std::size_t k = first; k <= last; ++k) norms.push_back(tokens_[k].norm);
        // A multi-word name may be a title-cased paraphrase ("Boat Insurance Renewal"): its words,
        // stemmed, must then all be in one record — an invented surname still is not.
        if (f_.has_phrase(norms) || (norms.size() > 1 && f_.in_one_record(norms, true))) return;
        report("name", span(first, last), "no observation mentions this name");
    }

    // ---- list items ----

    void check_list_items() {
        std::size_t start = 0;
        while (start < answer_.size()) {
            std::size_t end = answer_.find('\n', start);
            if (end == std::string_view::npos) end = answer_.size();
            list_item(answer_.substr(start, end - start));
            start = end + 1;
        }
    }

    void list_item(std::string_view line) {
        std::size_t i = 0;
        while (i < line.size() && i < 16 && (line[i] == ' ' || line[i] == '\t')) ++i;
        line.remove_prefix(i);
        std::size_t marker = 0;
        if (line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ")) {
            marker = 2;
        } else if (line.starts_with("\u2022 ")) {
            marker = 4;
        } else {
            std::size_t d = 0;
            while (d < line.size() && d < 4 && line[d] >= '0' && line[d] <= '9') ++d;
            if (d >= 1 && d <= 3 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ') {
                marker = d + 2;
            }
        }
        if (marker == 0) return;
        std::string_view title = line.substr(marker);
        for (std::string_view prefix : {"[ ] ", "[x] ", "[X] "}) {
            if (title.starts_with(prefix)) title.remove_prefix(prefix.size());
        }
        title = utf8_prefix(title, 300);
        std::size_t cut = title.size();
        for (std::string_view separator : {" \u2014 ", " \u2013 ", " - ", " (", ": ", ":**", " [", ", ", " | ", "; "}) {
            cut = std::min(cut, title.find(separator));
        }
        title = title.substr(0, cut);
        std::vector<std::string> all, content;
        for (const auto& t : lex(title, 80)) {
            all.push_back(t.norm);
            if (t.kind != Token::Kind::word || t.norm.size() < 3 || common(t.norm)) continue;
            if (number_word(t.norm) >= 0 || ordinal_word(t.norm) >= 0 || month_number(t.norm) ||
                weekday_number(t.norm) >= 0 || !canonical_status(t.norm).empty() || f_.field_keys.contains(t.norm) ||
                f_.list_nouns.contains(singular(t.norm))) {
                continue;
            }
            content.push_back(t.norm);
        }
        if (content.empty() || f_.has_phrase(all) || f_.in_one_record(content, true)) return;
        std::string shown(title);
        while (!shown.empty() && (shown.back() == '*' || shown.back() == ' ' || shown.back() == '.')) shown.pop_back();
        while (!shown.empty() && (shown.front() == '*' || shown.front() == '_')) shown.erase(0, 1);
        report("list_item", shown, "no item in the observations matches it");
    }
};

}  // namespace

void check_quoted_text(AnswerUnderCheck& answer) {
    QuotedTextCheck(answer).run();
}

}  // namespace skillhost::grounding::detail
