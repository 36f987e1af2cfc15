#include "plugin/foreign_secrets.hpp"

#include "base/sha256.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <algorithm>

namespace skillhost::plugin {
namespace json = boost::json;

namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

void longest_first(Values& values) {
    // The longest first: a value that contains another is replaced whole.
    std::stable_sort(values.begin(), values.end(),
                     [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
}

void redact_text(const Values& values, std::string& text) {
    for (const auto& [name, value] : values) {
        const std::string mark = "[secret " + name + "]";
        for (std::size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + mark.size()))
            text.replace(at, value.size(), mark);
    }
}

void redact_json(const Values& values, json::value& value) {
    if (values.empty()) return;
    const auto redact_string = [&values](json::string& text) {
        std::string plain(text);
        redact_text(values, plain);
        if (plain.size() != text.size() || plain != std::string_view(text)) text = plain;
    };
    std::vector<json::value*> pending{&value};
    while (!pending.empty()) {
        json::value* next = pending.back();
        pending.pop_back();
        if (json::string* text = next->if_string()) {
            redact_string(*text);
        } else if (json::array* items = next->if_array()) {
            for (json::value& item : *items) pending.push_back(&item);
        } else if (json::object* fields = next->if_object()) {
            const bool key_holds_secret = std::any_of(fields->begin(), fields->end(), [&values](const auto& field) {
                std::string key(field.key());
                redact_text(values, key);
                return key != field.key();
            });
            if (key_holds_secret) {
                // Keys cannot be changed in place: the object is rebuilt with redacted keys.
                json::object rebuilt;
                for (auto& field : *fields) {
                    std::string key(field.key());
                    redact_text(values, key);
                    rebuilt[key] = std::move(field.value());
                }
                *fields = std::move(rebuilt);
            }
            for (auto& field : *fields) pending.push_back(&field.value());
        }
    }
}

}  // namespace

void SecretRedactor::add(std::string name, std::string value) {
    if (value.empty()) return;
    values_.emplace_back(std::move(name), std::move(value));
    longest_first(values_);
}

void SecretRedactor::add_live(LiveValues source) {
    if (source) live_.push_back(std::move(source));
}

Values SecretRedactor::current() const {
    if (live_.empty()) return values_;
    Values all = values_;
    for (const LiveValues& source : live_) {
        for (auto& [name, value] : source())
            if (!value.empty()) all.emplace_back(std::move(name), std::move(value));
    }
    longest_first(all);
    return all;
}

void SecretRedactor::redact(std::string& text) const {
    redact_text(current(), text);
}

void SecretRedactor::redact(json::value& value) const {
    if (empty()) return;
    redact_json(current(), value);
}

void SecretRedactor::redact(json::object& object) const {
    if (empty()) return;
    json::value whole(std::move(object));
    redact_json(current(), whole);
    object = std::move(whole.as_object());
}

void SecretRedactor::redact(Error& error) const {
    if (empty()) return;
    const Values values = current();
    redact_text(values, error.message);
    json::value details(std::move(error.details));
    redact_json(values, details);
    error.details = std::move(details.as_object());
    for (std::string& suggestion : error.suggestions) redact_text(values, suggestion);
}

Result<InjectedSecrets> inject_secrets(const manifest::ForeignServer& server, const SecretSource* source,
                                       std::string_view user_id, bool require_all) {
    InjectedSecrets injected;
    std::string fingerprint_input;
    for (const manifest::ForeignSecret& secret : server.secrets) {
        std::optional<std::string> value;
        if (source != nullptr && !user_id.empty()) {
            auto found = source->secret(user_id, secret.name);
            if (!found) return found.error();
            value = std::move(found.value());
        }
        if (!value) {
            if (require_all) {
                const std::string user(user_id);
                Error error{errors::kUpstreamSecretMissing,
                            "MCP server '" + server.name + "' needs secret " + secret.name + " and user '" + user +
                                "' has not set it; set it with `skillhost secrets set " + secret.name + " --user " +
                                user + "` (the value is read from standard input) or PUT /v1/secrets/" + secret.name};
                error.details["plugin"] = server.name;
                error.details["secret"] = secret.name;
                error.details["user"] = user;
                return error;
            }
            injected.left_out.push_back(secret.name);
            continue;
        }
        std::string formatted = secret.format;
        if (const std::size_t at = formatted.find("{value}"); at != std::string::npos) formatted.replace(at, 7, *value);
        (secret.env.empty() ? injected.headers : injected.env)
            .emplace_back(secret.env.empty() ? secret.header : secret.env, std::move(formatted));
        fingerprint_input += secret.name + '\0' + *value + '\0';
        injected.redactor.add(secret.name, std::move(*value));
    }
    if (!fingerprint_input.empty()) injected.fingerprint = sha256_hex(fingerprint_input);
    return injected;
}

}  // namespace skillhost::plugin
