// Writes every model call (role, model, latency, tokens) to the audit log.
#pragma once

#include "llm/llm_call_observer.hpp"
#include "audit/audit_log.hpp"

namespace skillhost::app {

class AuditLlmObserver final : public llm::LlmCallObserver {
public:
    explicit AuditLlmObserver(audit::AuditLog* audit) : audit_(audit) {}
    void on_llm_call(const llm::LlmCallRecord& record) override;

private:
    audit::AuditLog* audit_;  // not owned; outlives the router
};

}  // namespace skillhost::app
