// The error value every subsystem returns for something a user or a plugin got wrong.
#pragma once

#include "base/error_kind.hpp"

#include <boost/json/object.hpp>

#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace skillhost {

// An error's code as text: read it, compare it, print it; only an Error sets it (from an ErrorCode,
// or from a plugin's own code), so no code is made up where the error is raised.
class ErrorCodeText {
public:
    const std::string& str() const { return text_; }
    const char* c_str() const { return text_.c_str(); }
    bool empty() const { return text_.empty(); }
    operator const std::string&() const { return text_; }
    operator std::string_view() const { return text_; }

    friend bool operator==(const ErrorCodeText& a, std::string_view b) { return a.text_ == b; }
    friend bool operator==(const ErrorCodeText& a, const ErrorCodeText& b) { return a.text_ == b.text_; }
    friend std::string operator+(const ErrorCodeText& a, std::string_view b) { return a.text_ + std::string(b); }
    friend std::string operator+(std::string_view a, const ErrorCodeText& b) { return std::string(a) + b.text_; }
    friend std::ostream& operator<<(std::ostream& out, const ErrorCodeText& code);

private:
    friend struct Error;
    ErrorCodeText() = default;
    explicit ErrorCodeText(std::string text) : text_(std::move(text)) {}
    std::string text_;
};

// A failure with a stable UPPER_SNAKE `code` of a known kind, a `message` that says what is wrong and
// what to do, machine-readable `details`, and `suggestions` for the next step (shown to users and the
// planner). The JSON shape is {"code","message","details","suggestions"} on every surface.
struct Error {
    Error() = default;
    Error(const ErrorCode& code, std::string message, boost::json::object details = {},
          std::vector<std::string> suggestions = {});

    // A plugin's own error code, passed on as the plugin gave it (kind plugin).
    static Error from_plugin(std::string code, std::string message, boost::json::object details = {});
    // An error another process reported with its kind (a runner over its socket).
    static Error reported(std::string code, ErrorKind kind, std::string message, boost::json::object details = {});
    // An error read back from storage, which keeps the code and not the kind (its JSON shape has
    // none): internal. It is shown, and compared with is(); never answered by kind.
    static Error restored(std::string code, std::string message);

    ErrorCodeText code;
    std::string message;
    boost::json::object details{};
    std::vector<std::string> suggestions{};

    ErrorKind kind() const { return kind_; }
    bool is(const ErrorCode& c) const { return code.str() == c.name; }
    // The same error under another code (a caller that knows better what the failure means here),
    // keeping message, details and suggestions.
    Error& recode(const ErrorCode& c);

    boost::json::object to_json() const;

private:
    ErrorKind kind_ = ErrorKind::internal;
};

// Either a value or an Error. (std::expected arrives with C++23.)
template <class T>
class Result {
public:
    Result(T value) : state_(std::move(value)) {}
    Result(Error error) : state_(std::move(error)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(state_); }
    const T& value() const& { return std::get<0>(state_); }
    T&& value() && { return std::get<0>(std::move(state_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    const Error& error() const { return std::get<1>(state_); }
    Error& error() { return std::get<1>(state_); }

private:
    std::variant<T, Error> state_;
};

// Result<void>: success or an Error.
class Status {
public:
    Status() = default;
    Status(Error error) : error_(std::move(error)), ok_(false) {}
    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const Error& error() const { return error_; }

private:
    Error error_{};
    bool ok_ = true;
};

}  // namespace skillhost
