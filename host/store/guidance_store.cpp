#include "store/guidance_store.hpp"
#include "store/error_codes.hpp"

#include "store/postgres_guidance_store.hpp"
#include "store/sqlite_guidance_store.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

namespace skillhost::store {
namespace {

// Words too common to say anything about a goal; matching on them would pull in every playbook.
const std::set<std::string>& stop_words() {
    static const std::set<std::string> words = {"a",    "an",  "the",  "and",  "or",   "of",  "to",     "in",
                                                "on",   "for", "with", "my",   "me",   "i",   "is",     "are",
                                                "what", "do",  "does", "did",  "have", "has", "please", "can",
                                                "you",  "it",  "this", "that", "from", "at"};
    return words;
}

}  // namespace

Result<std::unique_ptr<GuidanceStore>> GuidanceStore::open(const std::filesystem::path& database_file) {
    return open_sqlite_guidance_store(database_file);
}

Result<std::unique_ptr<GuidanceStore>> GuidanceStore::open(const db::StorageLocation& location) {
    if (location.backend == db::StorageBackend::postgres) return open_postgres_guidance_store(location.postgres_url);
    return open_sqlite_guidance_store(location.sqlite_file);
}

Error guidance_not_found_error(std::string_view id) {
    Error error{errors::kGuidanceNotFound, "there is no guidance '" + std::string(id) + "'", {}, {}};
    error.details["guidance_id"] = std::string(id);
    return error;
}

boost::json::object parse_situation(std::string_view stored) {
    boost::system::error_code ec;
    auto situation = boost::json::parse(stored, ec);
    if (!ec && situation.is_object()) return situation.as_object();
    return {};
}

std::string serialize_steps(const std::vector<std::string>& steps) {
    boost::json::array array;
    for (const auto& step : steps) array.emplace_back(step);
    return boost::json::serialize(array);
}

std::vector<std::string> parse_steps(std::string_view stored) {
    std::vector<std::string> steps;
    boost::system::error_code ec;
    auto parsed = boost::json::parse(stored, ec);
    if (ec || !parsed.is_array()) return steps;
    for (const auto& s : parsed.as_array()) {
        if (s.is_string()) steps.emplace_back(s.as_string());
    }
    return steps;
}

Result<PlaybookPosition> parse_playbook_cursor(std::string_view cursor) {
    if (cursor.empty()) return PlaybookPosition{std::numeric_limits<std::int64_t>::max(), ""};
    const auto colon = cursor.find(':');
    const std::string_view digits = cursor.substr(0, colon);
    PlaybookPosition position;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), position.created_ms);
    if (colon == std::string_view::npos || ec != std::errc() || end != digits.data() + digits.size() ||
        digits.empty() || position.created_ms < 0 || cursor.size() - colon - 1 > 64) {
        Error error{errors::kInvalidCursor,
                    "'" + std::string(cursor.substr(0, 100)) +
                        "' is not a playbook cursor; pass the next_cursor of the previous page, or none for the first",
                    {},
                    {}};
        error.details["cursor"] = std::string(cursor.substr(0, 100));
        return error;
    }
    position.id = std::string(cursor.substr(colon + 1));
    return position;
}

std::string playbook_cursor(const Playbook& last) {
    return std::to_string(last.created_ms) + ":" + last.id;
}

std::size_t playbook_page_size(std::size_t limit) {
    return std::clamp<std::size_t>(limit, 1, GuidanceStore::kMaxPlaybookPage);
}

std::set<std::string> goal_search_words(std::string_view text) {
    std::set<std::string> words;
    std::string word;
    const auto flush = [&] {
        if (word.size() > 1 && !stop_words().contains(word)) words.insert(word);
        word.clear();
    };
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else {
            flush();
        }
    }
    flush();
    return words;
}

std::string fts_any_words_query(std::string_view text) {
    std::string query;
    for (const auto& w : goal_search_words(text)) {
        if (!query.empty()) query += " OR ";
        query += "\"" + w + "\"";
    }
    return query;
}

}  // namespace skillhost::store
