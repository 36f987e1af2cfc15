#include "audit/audit_redaction.hpp"

#include "base/sha256.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace skillhost::audit {

namespace {

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// `needle` is lower case. Compares in place: every audited call checks each of its keys.
bool contains_ignoring_case(std::string_view text, std::string_view needle) {
    for (std::size_t at = 0; at + needle.size() <= text.size(); ++at) {
        std::size_t i = 0;
        while (i < needle.size() && ascii_lower(text[at + i]) == needle[i]) ++i;
        if (i == needle.size()) return true;
    }
    return false;
}

}  // namespace

bool is_secret_key(std::string_view key) {
    static constexpr std::string_view needles[] = {"token",  "secret",  "password",      "passwd", "api_key",
                                                   "apikey", "api-key", "authorization", "cookie", "credential"};
    return std::any_of(std::begin(needles), std::end(needles),
                       [&](std::string_view needle) { return contains_ignoring_case(key, needle); });
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

namespace {

// Whether any object key at any depth is a secret one. Walks with its own stack (bounded by the
// value's size), not by recursion.
bool has_secret_key(const boost::json::value& value) {
    std::vector<const boost::json::value*> pending{&value};
    while (!pending.empty()) {
        const boost::json::value* v = pending.back();
        pending.pop_back();
        if (const auto* object = v->if_object()) {
            for (const auto& entry : *object) {
                if (is_secret_key(entry.key())) return true;
                if (entry.value().is_structured()) pending.push_back(&entry.value());
            }
        } else if (const auto* array = v->if_array()) {
            for (const auto& item : *array)
                if (item.is_structured()) pending.push_back(&item);
        }
    }
    return false;
}

}  // namespace

AuditedArguments audited_arguments(const boost::json::value& args, std::size_t max_value_chars) {
    AuditedArguments out;
    if (has_secret_key(args)) {
        out.text = boost::json::serialize(redact_and_truncate(args, max_value_chars));
        out.sha256 = argument_digest(args);
        return out;
    }
    // Without secret keys the redacted copy is the value itself, so the digested text is its JSON.
    // When that whole text fits the limit, no string, array or object inside it can exceed it either.
    out.text = boost::json::serialize(args);
    out.sha256 = sha256_hex(out.text);
    if (out.text.size() > max_value_chars)
        out.text = boost::json::serialize(redact_and_truncate(args, max_value_chars));
    return out;
}

}  // namespace skillhost::audit
