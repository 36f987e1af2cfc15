// Adds a sink to the process's log while a test runs, without editing the sink list of a logger
// other threads are writing through: spdlog's sink lists are not thread-safe, and a runner's output
// reader or a call thread may log at any moment (editing the list under them once crashed a test
// with "pure virtual method called"). The default logger is replaced by a copy with the extra sink
// and put back at the end; the copy is never freed, since a thread may still hold it.
#pragma once

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace skillhost::test {

// Keeps every line logged to it, as "<level> <message>" and as the message alone. Held by
// shared_ptr: a thread that logs after the test ended still finds it.
class CapturedLog final : public spdlog::sinks::base_sink<std::mutex> {
public:
    std::vector<std::string> lines() {
        std::lock_guard lock(mutex_);
        return lines_;
    }
    std::vector<std::string> lines_with_level() {
        std::lock_guard lock(mutex_);
        return leveled_;
    }
    std::size_t bytes() {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& l : lines_) n += l.size();
        return n;
    }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        lines_.emplace_back(msg.payload.data(), msg.payload.size());
        const auto level = spdlog::level::to_string_view(msg.level);
        leveled_.push_back(std::string(level.data(), level.size()) + " " + lines_.back());
    }
    void flush_() override {}

private:
    std::vector<std::string> lines_;
    std::vector<std::string> leveled_;
};

class LogSinkScope {
public:
    explicit LogSinkScope(spdlog::sink_ptr sink) : previous_(spdlog::default_logger()) {
        auto with_sink = previous_->clone(previous_->name());
        with_sink->sinks().push_back(std::move(sink));  // not yet visible to any other thread
        keep_alive(with_sink);
        spdlog::set_default_logger(std::move(with_sink));
    }
    ~LogSinkScope() { spdlog::set_default_logger(previous_); }
    LogSinkScope(const LogSinkScope&) = delete;
    LogSinkScope& operator=(const LogSinkScope&) = delete;

private:
    // spdlog::info() and friends use the default logger through a raw pointer: a thread may be
    // inside a logger that is no longer the default, so none of them is ever destroyed.
    static void keep_alive(std::shared_ptr<spdlog::logger> logger) {
        static std::mutex mutex;
        static auto* const kept = new std::vector<std::shared_ptr<spdlog::logger>>;
        std::lock_guard lock(mutex);
        kept->push_back(std::move(logger));
    }

    std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace skillhost::test
