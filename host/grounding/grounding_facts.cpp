#include "grounding/grounding_facts.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace skillhost::grounding {
namespace {

namespace json = boost::json;

constexpr std::uint32_t kBoundary = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kNoRecord = std::numeric_limits<std::uint32_t>::max();
// How much of the observations is indexed: beyond this the check fails closed (missing facts make
// claims unsupported, never the reverse).
constexpr std::size_t kMaxFactTokens = 400000;
constexpr std::size_t kMaxStringBytes = 1 << 20;
constexpr std::size_t kMaxJsonNodes = 200000;
constexpr std::size_t kMaxValuesPerItem = 64;
constexpr std::size_t kPhraseBudget = 400000;

const Token* word_at(const std::vector<Token>& t, std::size_t j) {
    return j < t.size() && t[j].kind == Token::Kind::word ? &t[j] : nullptr;
}

// Month names; the ambiguous ones ("may", "march", "jan"...) only when capitalised.
int month_of(const Token& t) {
    const int m = month_number(t.norm);
    if (m == 0) return 0;
    const bool ambiguous = t.norm.size() <= 4 || t.norm == "march";
    return ambiguous && !t.capitalised ? 0 : m;
}

int weekday_token(const Token& t) {
    const int d = weekday_number(t.norm);
    if (d < 0) return -1;
    return t.norm.size() <= 5 && !t.norm.ends_with("day") && !t.capitalised ? -1 : d;
}

int day_number(const Token& t) {
    if (t.kind != Token::Kind::number || !t.integer || t.percent || !t.currency.empty()) return 0;
    return t.value >= 1 && t.value <= 31 ? static_cast<int>(t.value) : 0;
}

int year_number(const std::vector<Token>& t, std::size_t j) {
    if (j >= t.size() || t[j].kind != Token::Kind::number || !t[j].integer || t[j].ordinal || t[j].percent) return 0;
    return t[j].value >= 1900 && t[j].value <= 2200 ? static_cast<int>(t[j].value) : 0;
}

std::string currency_of_word(std::string_view w) {
    if (w == "eur" || w == "euro" || w == "euros") return "eur";
    if (w == "usd" || w == "dollar" || w == "dollars") return "usd";
    if (w == "gbp" || w == "pound" || w == "pounds") return "gbp";
    if (w == "jpy" || w == "yen") return "jpy";
    return {};
}

bool skips_one(std::string_view previous) {
    static constexpr std::string_view words[] = {"the", "this",    "that", "which",   "each",   "every", "any",
                                                 "no",  "another", "some", "someone", "anyone", "every", "only"};
    return std::find(std::begin(words), std::end(words), previous) != std::end(words);
}

// A date starting at a day number: "28 November [2026]", "28th of Nov".
bool day_month_date(const std::vector<Token>& t, std::size_t i, int day, ClaimValue& v) {
    std::size_t j = i + 1;
    if (const Token* of = word_at(t, j); of && of->norm == "of") ++j;
    const Token* m = word_at(t, j);
    if (!m || day == 0) return false;
    const int month = month_of(*m);
    if (month == 0) return false;
    v.kind = ClaimValue::Kind::date;
    v.first = i;
    v.day = day;
    v.month = month;
    v.last = j;
    if (const int year = year_number(t, j + 1)) {
        v.year = year;
        v.last = j + 1;
    }
    return true;
}

}  // namespace

std::string singular(std::string_view w) {
    if (w.size() > 4 && w.ends_with("ies")) return std::string(w.substr(0, w.size() - 3)) + "y";
    for (std::string_view suffix : {"ses", "xes", "ches", "shes"}) {
        if (w.size() > suffix.size() + 1 && w.ends_with(suffix)) return std::string(w.substr(0, w.size() - 2));
    }
    if (w.size() > 3 && w.back() == 's' && !w.ends_with("ss")) return std::string(w.substr(0, w.size() - 1));
    return std::string(w);
}

std::string canonical_status(std::string_view w) {
    static const std::map<std::string_view, std::string_view> statuses = {{"done", "done"},
                                                                          {"complete", "done"},
                                                                          {"completed", "done"},
                                                                          {"finished", "done"},
                                                                          {"closed", "done"},
                                                                          {"resolved", "done"},
                                                                          {"open", "open"},
                                                                          {"pending", "open"},
                                                                          {"todo", "open"},
                                                                          {"outstanding", "open"},
                                                                          {"unfinished", "open"},
                                                                          {"in_progress", "in_progress"},
                                                                          {"inprogress", "in_progress"},
                                                                          {"started", "in_progress"},
                                                                          {"ongoing", "in_progress"},
                                                                          {"underway", "in_progress"},
                                                                          {"doing", "in_progress"},
                                                                          {"cancelled", "cancelled"},
                                                                          {"canceled", "cancelled"},
                                                                          {"dropped", "cancelled"},
                                                                          {"abandoned", "cancelled"}};
    const auto it = statuses.find(w);
    return it == statuses.end() ? std::string() : std::string(it->second);
}

std::vector<ClaimValue> read_values(const std::vector<Token>& t) {
    std::vector<ClaimValue> out;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const Token& k = t[i];
        ClaimValue v;
        v.first = v.last = i;
        if (k.kind == Token::Kind::date) {
            v.kind = ClaimValue::Kind::date;
            v.year = k.year;
            v.month = k.month;
            v.day = k.day;
            v.alt_month = k.alt_month;
            v.alt_day = k.alt_day;
        } else if (k.kind == Token::Kind::time) {
            v.kind = ClaimValue::Kind::time;
            v.minutes = k.minutes;
            v.twelve_hour_unknown = k.twelve_hour_unknown;
        } else if (k.kind == Token::Kind::number) {
            const int day = k.ordinal && k.value >= 1 && k.value <= 31 ? static_cast<int>(k.value) : day_number(k);
            if (day == 0 || !day_month_date(t, i, day, v)) {
                v.kind = k.ordinal ? ClaimValue::Kind::ordinal : ClaimValue::Kind::number;
                v.norm = k.norm;
                v.value = k.value;
                v.integer = k.integer;
                v.percent = k.percent;
                v.currency = k.currency;
                if (const Token* next = word_at(t, i + 1)) {
                    if (auto c = currency_of_word(next->norm); !c.empty() && v.currency.empty()) {
                        v.currency = c;
                        v.last = i + 1;
                    } else if (next->norm == "percent" || next->norm == "pct") {
                        v.percent = true;
                        v.last = i + 1;
                    }
                }
                if (const Token* previous = i > 0 ? word_at(t, i - 1) : nullptr; previous && previous->all_caps) {
                    if (auto c = currency_of_word(previous->norm); !c.empty() && v.currency.empty()) v.currency = c;
                }
            }
        } else if (const int month = month_of(k)) {
            v.month = month;
            v.kind = ClaimValue::Kind::month;
            if (i + 1 < t.size()) {
                const Token& next = t[i + 1];
                const int day = next.ordinal && next.value <= 31 ? static_cast<int>(next.value) : day_number(next);
                if (day && !year_number(t, i + 1)) {
                    v.kind = ClaimValue::Kind::date;
                    v.day = day;
                    v.last = i + 1;
                    if (const int year = year_number(t, i + 2)) {
                        v.year = year;
                        v.last = i + 2;
                    }
                } else if (const int year = year_number(t, i + 1)) {
                    v.year = year;
                    v.last = i + 1;
                }
            }
        } else if (const int weekday = weekday_token(k); weekday >= 0) {
            v.kind = ClaimValue::Kind::weekday;
            v.weekday = weekday;
        } else if (const int n = number_word(k.norm); n >= 0 && k.kind == Token::Kind::word) {
            const Token* previous = i > 0 ? word_at(t, i - 1) : nullptr;
            if (n == 1 && previous && skips_one(previous->norm)) continue;
            if (n == 100 || n == 1000) continue;  // "a hundred" alone is rarely a claim
            int value = n;
            if (n >= 20 && n % 10 == 0) {
                if (const Token* unit = word_at(t, i + 1); unit && !unit->punct_before) {
                    const int u = number_word(unit->norm);
                    if (u >= 1 && u <= 9) {
                        value += u;
                        v.last = i + 1;
                    }
                }
            }
            if (const Token* hundred = word_at(t, v.last + 1); hundred && hundred->norm == "hundred" && value < 100) {
                value *= 100;
                v.last += 1;
            }
            if (value >= 1 && value <= 31 && v.last == i && day_month_date(t, i, value, v)) {
                out.push_back(v);
                i = v.last;
                continue;
            }
            v.kind = ClaimValue::Kind::number;
            v.value = value;
            v.integer = true;
            v.norm = std::to_string(value);
        } else if (const int o = ordinal_word(k.norm); o >= 0) {
            if (!day_month_date(t, i, o, v)) {
                v.kind = ClaimValue::Kind::ordinal;
                v.value = o;
                v.integer = true;
                v.norm = std::to_string(o);
            }
        } else if (k.norm == "noon" || k.norm == "midday" || k.norm == "midnight") {
            v.kind = ClaimValue::Kind::time;
            v.minutes = k.norm == "midnight" ? 0 : 720;
        } else {
            continue;
        }
        out.push_back(v);
        i = v.last;
    }
    return out;
}

class FactsBuilder {
public:
    FactsBuilder(GroundingFacts& facts, std::optional<std::tuple<int, int, int>> today) : f_(facts), today_(today) {}

    std::uint32_t new_record() { return next_record_++; }

    void add_text(std::string_view text, std::uint32_t record) {
        if (text.size() > kMaxStringBytes) {
            text = text.substr(0, kMaxStringBytes);
            f_.truncated_ = true;
        }
        if (budget_ == 0) {
            f_.truncated_ = !text.empty() || f_.truncated_;
            return;
        }
        std::size_t lines = 1;
        for (char c : text) lines += c == '\n' ? 1 : 0;
        f_.max_lines = std::max(f_.max_lines, lines);
        const auto tokens = lex(text, budget_);
        budget_ -= tokens.size();
        if (budget_ == 0) f_.truncated_ = true;
        for (const auto& t : tokens) {
            index(t.norm, record, t.kind == Token::Kind::word);
            switch (t.kind) {
                case Token::Kind::number:
                    f_.numbers.insert(t.norm);
                    if (!t.currency.empty()) f_.currencies.insert(t.currency);
                    break;
                case Token::Kind::code: f_.codes.insert(t.norm); break;
                case Token::Kind::url: f_.urls.insert(t.norm); break;
                case Token::Kind::email: f_.emails.insert(t.norm); break;
                case Token::Kind::path:
                    f_.paths.insert(t.norm);
                    for (std::size_t p = t.norm.find('/'); p != std::string::npos; p = t.norm.find('/', p + 1)) {
                        f_.paths.insert(t.norm.substr(p + 1));
                    }
                    break;
                case Token::Kind::word:
                    if (auto c = currency_of_word(t.norm); !c.empty()) f_.currencies.insert(c);
                    break;
                default: break;
            }
        }
        f_.stream_.push_back(kBoundary);
        for (const auto& v : read_values(tokens)) {
            switch (v.kind) {
                case ClaimValue::Kind::number:
                case ClaimValue::Kind::ordinal: f_.numbers.insert(v.norm); break;
                case ClaimValue::Kind::date:
                    add_date(v.year, v.month, v.day);
                    if (v.alt_month) add_date(v.year, v.alt_month, v.alt_day);
                    break;
                case ClaimValue::Kind::month:
                    f_.months.insert(v.month);
                    if (v.year) f_.numbers.insert(std::to_string(v.year));
                    break;
                case ClaimValue::Kind::weekday: f_.weekdays.insert(v.weekday); break;
                case ClaimValue::Kind::time: f_.minutes.insert(v.minutes); break;
            }
        }
    }

    void add_json(const json::value& root, std::string_view tool) {
        struct Frame {
            const json::value* value;
            std::string_view key;
            std::uint32_t record;
            const json::object* parent;
        };
        std::vector<Frame> stack{{&root, {}, new_record(), nullptr}};
        std::string tool_noun(tool.substr(0, tool.find('_')));
        if (tool_noun == "fs") tool_noun = "file";
        while (!stack.empty()) {
            if (++nodes_ > kMaxJsonNodes) {
                f_.truncated_ = true;
                return;
            }
            const Frame frame = stack.back();
            stack.pop_back();
            const json::value& v = *frame.value;
            if (v.is_string()) {
                add_text(v.as_string(), frame.record);
            } else if (v.is_int64() || v.is_uint64() || v.is_double()) {
                const std::string text = json::serialize(v);
                add_text(text, frame.record);
            } else if (v.is_object()) {
                const auto& object = v.as_object();
                const std::uint32_t record = new_record();
                status_item(object);
                for (const auto& [key, child] : object) {
                    f_.field_keys.insert(fold_lower(key));
                    add_text(key, kNoRecord);
                    stack.push_back({&child, key, record, &object});
                }
            } else if (v.is_array()) {
                list(v.as_array(), frame, tool_noun);
                for (const auto& child : v.as_array()) stack.push_back({&child, frame.key, frame.record, nullptr});
            }
        }
    }

    void finish() {
        for (auto* map : {&f_.word_records_, &f_.stem_records_}) {
            for (auto& [word, records] : *map) {
                std::sort(records.begin(), records.end());
                records.erase(std::unique(records.begin(), records.end()), records.end());
            }
        }
        for (const auto& l : f_.lists) {
            f_.list_nouns.insert(l.nouns.begin(), l.nouns.end());
            f_.counts.insert(static_cast<std::int64_t>(l.size));
            f_.counts.insert(l.declared.begin(), l.declared.end());
            f_.max_list = std::max(f_.max_list, l.size);
        }
    }

private:
    void index(const std::string& norm, std::uint32_t record, bool word) {
        auto [it, added] = f_.ids_.try_emplace(norm, static_cast<std::uint32_t>(f_.positions_.size()));
        if (added) {
            f_.positions_.emplace_back();
            f_.norms_.push_back(norm);
        }
        f_.positions_[it->second].push_back(static_cast<std::uint32_t>(f_.stream_.size()));
        f_.stream_.push_back(it->second);
        if (record == kNoRecord || !word) return;
        auto& records = f_.word_records_[norm];
        if (records.empty() || records.back() != record) records.push_back(record);
        auto& stems = f_.stem_records_[stem(norm)];
        if (stems.empty() || stems.back() != record) stems.push_back(record);
    }

    void add_date(int year, int month, int day) {
        f_.month_days.insert({month, day});
        f_.months.insert(month);
        f_.days_of_month.insert(day);
        if (year == 0) return;
        f_.dates.insert({year, month, day});
        f_.numbers.insert(std::to_string(year));
        f_.weekdays.insert(weekday_of(year, month, day));
        if (today_) {
            const auto [ty, tm, td] = *today_;
            f_.day_offsets.insert(days_from_civil(year, month, day) - days_from_civil(ty, tm, td));
        }
    }

    void status_item(const json::object& object) {
        const json::value* status = object.if_contains("status");
        if (!status) status = object.if_contains("state");
        if (!status || !status->is_string()) return;
        GroundingFacts::StatusItem item;
        item.status = canonical_status(fold_lower(status->as_string()));
        if (item.status.empty()) item.status = fold_lower(status->as_string());
        for (std::string_view key : {"title", "name", "text", "path"}) {
            if (const auto* title = object.if_contains(key); title && title->is_string()) {
                item.title = std::string(title->as_string());
                break;
            }
        }
        if (item.title.empty()) return;
        for (const auto& t : lex(item.title, 64)) {
            if (t.kind == Token::Kind::word && t.norm.size() >= 3 && !is_common_word(t.norm))
                item.stems.push_back(stem(t.norm));
        }
        item.values = item_values(object);
        if (f_.status_items.size() < 2000) f_.status_items.push_back(std::move(item));
    }

    std::unordered_set<std::string> item_values(const json::object& object) {
        std::unordered_set<std::string> values;
        const auto add = [&](std::string_view text) {
            if (values.size() >= kMaxValuesPerItem || text.size() > 200) return;
            std::string v = fold_lower(text);
            if (auto s = canonical_status(v); !s.empty()) values.insert(s);
            values.insert(std::move(v));
        };
        for (const auto& [key, field] : object) {
            if (field.is_string()) {
                add(field.as_string());
            } else if (field.is_array()) {
                for (const auto& tag : field.as_array()) {
                    if (tag.is_string()) add(tag.as_string());
                }
            }
        }
        return values;
    }

    void list(const json::array& array, const auto& frame, const std::string& tool_noun) {
        GroundingFacts::List l;
        l.size = array.size();
        if (!frame.key.empty()) l.nouns.insert(singular(fold_lower(frame.key)));
        // A list of records is what the tool is about ("task_list" -> tasks); a list of scalars
        // (a task's tags) is only what its key says.
        const bool records =
            std::any_of(array.begin(), array.end(), [](const json::value& e) { return e.is_object(); });
        if (records && !tool_noun.empty()) l.nouns.insert(tool_noun);
        if (frame.parent) {
            for (std::string_view key : {"count", "total"}) {
                if (const auto* n = frame.parent->if_contains(key); n && n->is_int64())
                    l.declared.push_back(n->as_int64());
            }
        }
        std::map<std::string, std::int64_t> value_counts;
        for (const auto& element : array) {
            if (!element.is_object()) continue;
            auto values = item_values(element.as_object());
            for (const auto& value : values) {
                if (value.size() <= 30 && value.find(' ') == std::string::npos) {
                    f_.group_values.insert(value);
                    ++value_counts[value];
                }
            }
            l.items.push_back(std::move(values));
        }
        if (l.size > 0) {
            for (const auto& [value, count] : value_counts) {
                // Records created in the same second share a time stamp: a share of time stamps is
                // an accident of when the data was written, not a fact an answer may state.
                if (value.find(':') != std::string::npos) continue;
                const double share = 100.0 * static_cast<double>(count) / static_cast<double>(l.size);
                f_.percentages.insert(static_cast<std::int64_t>(std::floor(share)));
                f_.percentages.insert(static_cast<std::int64_t>(std::ceil(share)));
            }
        }
        if (f_.lists.size() < 1000) f_.lists.push_back(std::move(l));
    }

    GroundingFacts& f_;
    std::optional<std::tuple<int, int, int>> today_;
    std::uint32_t next_record_ = 0;
    std::size_t budget_ = kMaxFactTokens;
    std::size_t nodes_ = 0;
};

GroundingFacts GroundingFacts::from_observations(const std::vector<store::ScratchpadEntry>& steps,
                                                 std::string_view goal,
                                                 std::optional<std::tuple<int, int, int>> today) {
    GroundingFacts facts;
    FactsBuilder builder(facts, today);
    for (const auto& step : steps) {
        if (!step.action || !step.observation) continue;
        const std::uint32_t record = builder.new_record();
        builder.add_text(step.action->tool, record);
        builder.add_json(step.action->args, step.action->tool);
        builder.add_json(step.observation->raw, step.action->tool);
    }
    // What the user wrote is theirs to repeat.
    builder.add_text(goal, builder.new_record());
    builder.finish();
    return facts;
}

bool GroundingFacts::has_phrase(const std::vector<std::string>& norms) const {
    if (norms.empty()) return true;
    std::vector<std::uint32_t> wanted;
    wanted.reserve(norms.size());
    for (const auto& n : norms) {
        const auto it = ids_.find(n);
        if (it == ids_.end()) return false;
        wanted.push_back(it->second);
    }
    std::size_t anchor = 0;
    for (std::size_t k = 1; k < wanted.size(); ++k) {
        if (positions_[wanted[k]].size() < positions_[wanted[anchor]].size()) anchor = k;
    }
    std::size_t work = 0;
    for (const std::uint32_t p : positions_[wanted[anchor]]) {
        if (p < anchor || p - anchor + wanted.size() > stream_.size()) continue;
        const std::size_t start = p - anchor;
        std::size_t k = 0;
        while (k < wanted.size() && stream_[start + k] == wanted[k]) ++k;
        if (k == wanted.size()) return true;
        work += k + 1;
        if (work > kPhraseBudget) return false;
    }
    return false;
}

std::vector<std::string> GroundingFacts::neighbours(std::string_view norm, int offset) const {
    std::vector<std::string> out;
    const auto it = ids_.find(std::string(norm));
    if (it == ids_.end() || (offset != 1 && offset != -1)) return out;
    std::set<std::uint32_t> seen;
    constexpr std::size_t kMaxNeighbours = 64;
    for (const std::uint32_t p : positions_[it->second]) {
        if ((offset < 0 && p == 0) || (offset > 0 && p + 1 >= stream_.size())) continue;
        const std::uint32_t id = stream_[offset > 0 ? p + 1 : p - 1];
        if (id == kBoundary || !seen.insert(id).second) continue;
        out.push_back(norms_[id]);
        if (out.size() == kMaxNeighbours) break;
    }
    return out;
}

bool GroundingFacts::in_one_record(const std::vector<std::string>& words, bool stemmed) const {
    const auto& map = stemmed ? stem_records_ : word_records_;
    std::vector<const std::vector<std::uint32_t>*> lists;
    for (const auto& w : words) {
        const auto it = map.find(stemmed ? stem(w) : w);
        if (it == map.end()) return false;
        lists.push_back(&it->second);
    }
    if (lists.empty()) return true;
    std::sort(lists.begin(), lists.end(), [](auto* a, auto* b) { return a->size() < b->size(); });
    for (const std::uint32_t record : *lists.front()) {
        bool everywhere = true;
        for (std::size_t k = 1; k < lists.size() && everywhere; ++k) {
            everywhere = std::binary_search(lists[k]->begin(), lists[k]->end(), record);
        }
        if (everywhere) return true;
    }
    return false;
}

}  // namespace skillhost::grounding
