#include "policy/audit_redaction.hpp"

#include "base/sha256.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <limits>

namespace skillhost::policy {

bool is_secret_key(std::string_view key) {
    std::string lower(key);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    static constexpr std::string_view needles[] = {"token",  "secret",  "password",      "passwd", "api_key",
                                                   "apikey", "api-key", "authorization", "cookie", "credential"};
    return std::any_of(std::begin(needles), std::end(needles),
                       [&](std::string_view needle) { return lower.find(needle) != std::string::npos; });
}

namespace {

constexpr std::size_t no_limit = std::numeric_limits<std::size_t>::max();

std::string truncated_text(const std::string& text, std::size_t max_value_chars) {
    // Keep a readable prefix but cut on a UTF-8 character boundary.
    std::size_t keep = std::min<std::size_t>(max_value_chars / 2, 64);
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    return text.substr(0, keep) + "… [truncated: " + std::to_string(text.size()) + " chars, sha256 " +
           sha256_hex(text) + "]";
}

boost::json::value transform(const boost::json::value& value, std::size_t max_value_chars) {
    switch (value.kind()) {
        case boost::json::kind::object: {
            boost::json::object out;
            for (const auto& entry : value.get_object()) {
                if (is_secret_key(entry.key()))
                    out[entry.key()] = "[redacted]";
                else
                    out[entry.key()] = transform(entry.value(), max_value_chars);
            }
            if (max_value_chars != no_limit) {
                const std::string text = boost::json::serialize(out);
                if (text.size() > max_value_chars) return boost::json::value(truncated_text(text, max_value_chars));
            }
            return out;
        }
        case boost::json::kind::array: {
            boost::json::array out;
            for (const auto& item : value.get_array()) out.push_back(transform(item, max_value_chars));
            if (max_value_chars != no_limit) {
                const std::string text = boost::json::serialize(out);
                if (text.size() > max_value_chars) return boost::json::value(truncated_text(text, max_value_chars));
            }
            return out;
        }
        case boost::json::kind::string: {
            const auto& s = value.get_string();
            if (s.size() > max_value_chars)
                return boost::json::value(truncated_text(std::string(s.data(), s.size()), max_value_chars));
            return value;
        }
        default: return value;
    }
}

}  // namespace

boost::json::value redact_and_truncate(const boost::json::value& value, std::size_t max_value_chars) {
    if (const auto* object = value.if_object()) {
        // The top level keeps its keys so the audit shows which arguments were passed.
        boost::json::object out;
        for (const auto& entry : *object) {
            if (is_secret_key(entry.key()))
                out[entry.key()] = "[redacted]";
            else
                out[entry.key()] = transform(entry.value(), max_value_chars);
        }
        return out;
    }
    return transform(value, max_value_chars);
}

std::string argument_digest(const boost::json::value& args) {
    return sha256_hex(boost::json::serialize(transform(args, no_limit)));
}

}  // namespace skillhost::policy
