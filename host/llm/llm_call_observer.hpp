// Where every model call is reported (role, model, latency, tokens, structured-output failures).
// The audit log implements this; tests collect the records.
#pragma once

#include "base/observer_list.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace skillhost::llm {

struct LlmCallRecord {
    std::string role;
    std::string cognitive_mode;
    std::string user_id;  // from the request, empty when not known
    std::string run_id;
    std::string model_name;  // the key in models.yaml
    std::string model;       // the backend's model name
    std::string backend;
    std::chrono::milliseconds latency{0};
    int prompt_tokens = 0;
    int completion_tokens = 0;
    bool tokens_estimated = false;
    bool streamed = false;
    bool structured_output_requested = false;
    // Structured output was requested but the content is not a JSON object.
    bool structured_output_parse_failed = false;
    bool ok = true;
    std::string error_code;  // when !ok
};

class LlmCallObserver {
public:
    virtual ~LlmCallObserver() = default;
    // Called once per call, on the calling thread, after it finished (successfully or not).
    virtual void on_llm_call(const LlmCallRecord& record) = 0;
};

class NoopLlmCallObserver final : public LlmCallObserver {
public:
    void on_llm_call(const LlmCallRecord&) override {}
};

// Keeps every record; thread-safe.
class CollectingLlmCallObserver final : public LlmCallObserver {
public:
    void on_llm_call(const LlmCallRecord& record) override {
        std::lock_guard lock(mutex_);
        records_.push_back(record);
    }
    std::vector<LlmCallRecord> records() const {
        std::lock_guard lock(mutex_);
        return records_;
    }

private:
    mutable std::mutex mutex_;
    std::vector<LlmCallRecord> records_;
};

// Forwards every record to each observer added so far (the audit log, the daemon's metrics).
class LlmCallObserverList final : public LlmCallObserver {
public:
    void add(std::shared_ptr<LlmCallObserver> observer) { observers_.add(std::move(observer)); }
    void on_llm_call(const LlmCallRecord& record) override {
        observers_.for_each([&](LlmCallObserver& o) { o.on_llm_call(record); });
    }

private:
    ObserverList<LlmCallObserver> observers_;
};

}  // namespace skillhost::llm
