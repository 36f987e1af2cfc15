#include "plugin/foreign_secrets.hpp"

#include "base/sha256.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <algorithm>

namespace skillhost::plugin {
namespace json = boost::json;

void SecretRedactor::add(std::string name, std::string value) {
    if (value.empty()) return;
    values_.emplace_back(std::move(name), std::move(value));
    // The longest first: a value that contains another is replaced whole.
    std::stable_sort(values_.begin(), values_.end(),
                     [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
}

void SecretRedactor::redact(std::string& text) const {
    for (const auto& [name, value] : values_) {
        const std::string mark = "[secret " + name + "]";
        for (std::size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + mark.size()))
            text.replace(at, value.size(), mark);
    }
}

void SecretRedactor::redact(json::value& value) const {
    if (values_.empty()) return;
    const auto redact_string = [this](json::string& text) {
        std::string plain(text);
        redact(plain);
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
            const bool key_holds_secret = std::any_of(fields->begin(), fields->end(), [this](const auto& field) {
                std::string key(field.key());
                redact(key);
                return key != field.key();
            });
            if (key_holds_secret) {
                // Keys cannot be changed in place: the object is rebuilt with redacted keys.
                json::object rebuilt;
                for (auto& field : *fields) {
                    std::string key(field.key());
                    redact(key);
                    rebuilt[key] = std::move(field.value());
                }
                *fields = std::move(rebuilt);
            }
            for (auto& field : *fields) pending.push_back(&field.value());
        }
    }
}

void SecretRedactor::redact(json::object& object) const {
    if (values_.empty()) return;
    json::value whole(std::move(object));
    redact(whole);
    object = std::move(whole.as_object());
}

void SecretRedactor::redact(Error& error) const {
    if (values_.empty()) return;
    redact(error.message);
    redact(error.details);
    for (std::string& suggestion : error.suggestions) redact(suggestion);
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
