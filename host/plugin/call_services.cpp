#include "plugin/call_services.hpp"
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"

namespace skillhost::plugin {

void CallServices::progress(double, double, std::string_view) {}

void CallServices::log(skillhost_log_level, std::string_view) {}

bool CallServices::samples() const {
    return false;
}

Result<std::string> CallServices::sample(std::string_view role, std::string_view, const std::atomic<bool>&) {
    return Error{errors::kLlmUnavailable,
                 "this call's front end does not answer completions for role '" + std::string(role) + "'",
                 boost::json::object{{"role", std::string(role)}}};
}

Result<std::string> CallServices::elicit(std::string_view, const std::atomic<bool>&) {
    return Error{errors::kElicitationUnavailable,
                 "this call's front end cannot ask the user for input (only MCP clients that declare elicitation "
                 "can); continue without it or ask the caller to pass it as an argument"};
}

std::optional<std::chrono::milliseconds> CallServices::running_long_after() const {
    return std::nullopt;
}

void CallServices::running_long() {}

std::optional<std::chrono::milliseconds> ForwardedCallServices::running_long_after() const {
    return inner_ ? inner_->running_long_after() : std::nullopt;
}

void ForwardedCallServices::running_long() {
    if (inner_) inner_->running_long();
}

void ForwardedCallServices::progress(double done, double total, std::string_view message) {
    if (inner_) inner_->progress(done, total, message);
}

void ForwardedCallServices::log(skillhost_log_level level, std::string_view message) {
    if (inner_) inner_->log(level, message);
}

bool ForwardedCallServices::samples() const {
    return inner_ && inner_->samples();
}

Result<std::string> ForwardedCallServices::sample(std::string_view role, std::string_view request_json,
                                                  const std::atomic<bool>& call_ended) {
    return inner_ ? inner_->sample(role, request_json, call_ended)
                  : CallServices::sample(role, request_json, call_ended);
}

Result<std::string> ForwardedCallServices::elicit(std::string_view request_json, const std::atomic<bool>& call_ended) {
    return inner_ ? inner_->elicit(request_json, call_ended) : CallServices::elicit(request_json, call_ended);
}

namespace {

class ProgressListener final : public CallServices {
public:
    explicit ProgressListener(std::function<void(double, double, std::string_view)> on_progress)
        : on_progress_(std::move(on_progress)) {}
    void progress(double progress, double total, std::string_view message) override {
        if (on_progress_) on_progress_(progress, total, message);
    }

private:
    const std::function<void(double, double, std::string_view)> on_progress_;
};

}  // namespace

std::shared_ptr<CallServices> progress_listener(std::function<void(double, double, std::string_view)> on_progress) {
    return std::make_shared<ProgressListener>(std::move(on_progress));
}

}  // namespace skillhost::plugin
