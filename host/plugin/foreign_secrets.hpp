// The per-user secrets a foreign MCP server's declaration asks for (manifest::ForeignSecret), as
// one instance of the server gets them: looked up for the instance's user, formatted into the
// environment variables (stdio) or request headers (streamable_http) the declaration names, and
// their values redacted from everything the instance sends back: results, errors, questions,
// sampling requests, tool listings and its log lines. A value is never written to a file, an
// argument list or a log by the host.
#pragma once

#include "base/error.hpp"
#include "manifest/foreign_server.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::plugin {

// Where users' secrets are kept (app/user_secret_store.hpp keeps them sealed in the database).
class SecretSource {
public:
    virtual ~SecretSource() = default;
    // `user_id`'s secret `name`; nullopt when the user has not set it. Thread-safe.
    virtual Result<std::optional<std::string>> secret(std::string_view user_id, std::string_view name) const = 0;
};

// Replaces every occurrence of each known value by "[secret NAME]".
class SecretRedactor {
public:
    // Values that change while the redactor is in use (an OAuth session's tokens, refreshed): asked
    // at each redaction, from any thread.
    using LiveValues = std::function<std::vector<std::pair<std::string, std::string>>()>;

    void add(std::string name, std::string value);
    void add_live(LiveValues source);
    bool empty() const { return values_.empty() && live_.empty(); }
    void redact(std::string& text) const;
    // Every string in `value`, keys included (iteratively: no recursion on a server's nesting).
    void redact(boost::json::value& value) const;
    void redact(boost::json::object& object) const;
    // Its message, details and suggestions.
    void redact(Error& error) const;

private:
    std::vector<std::pair<std::string, std::string>> current() const;  // values_ and the live ones, longest first

    std::vector<std::pair<std::string, std::string>> values_;  // longest value first
    std::vector<LiveValues> live_;
};

struct InjectedSecrets {
    std::vector<std::pair<std::string, std::string>> env;      // stdio: NAME=formatted value
    std::vector<std::pair<std::string, std::string>> headers;  // streamable_http
    std::vector<std::string> left_out;                         // secrets the user has not set
    SecretRedactor redactor;
    std::string fingerprint;  // changes when any value does: the instance is started again
};

// The secrets of `server` for `user_id`. With `require_all`, a secret the user has not set is
// UPSTREAM_SECRET_MISSING saying how to set it; without (the process that lists the tools at load),
// it is left out and named in left_out. A source that cannot be read is its error.
Result<InjectedSecrets> inject_secrets(const manifest::ForeignServer& server, const SecretSource* source,
                                       std::string_view user_id, bool require_all);

}  // namespace skillhost::plugin
