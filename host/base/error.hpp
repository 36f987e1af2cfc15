// The error value every subsystem returns for something a user or a plugin got wrong.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace skillhost {

// A failure with a stable UPPER_SNAKE `code`, a `message` that says what is wrong and what to do,
// machine-readable `details`, and `suggestions` for the next step (shown to users and the planner).
struct Error {
    std::string code;
    std::string message;
    boost::json::object details{};
    std::vector<std::string> suggestions{};

    boost::json::object to_json() const;
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
