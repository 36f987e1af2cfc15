// Writes every model call (role, model, latency, tokens) to the audit log.
#pragma once

#include "llm/llm_call_observer.hpp"
#include "policy/audit_log.hpp"

namespace skillhost::app {

class AuditLlmObserver final : public llm::LlmCallObserver {
public:
    explicit AuditLlmObserver(policy::AuditLog* audit) : audit_(audit) {}
    void on_llm_call(const llm::LlmCallRecord& record) override;

private:
    policy::AuditLog* audit_;  // not owned; outlives the router
};

}  // namespace skillhost::app
