#include "app/audit_llm_observer.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {

void AuditLlmObserver::on_llm_call(const llm::LlmCallRecord& record) {
    if (!audit_) return;
    audit::LlmCallAudit a;
    a.user_id = record.user_id;
    a.run_id = record.run_id;
    a.role = record.role;
    a.backend = record.backend;
    a.model = record.model.empty() ? record.model_name : record.model;
    a.duration = std::chrono::duration_cast<std::chrono::microseconds>(record.latency);
    a.input_tokens = record.prompt_tokens;
    a.output_tokens = record.completion_tokens;
    a.ok = record.ok;
    a.error_code = record.error_code;
    if (auto st = audit_->record_llm_call(a); !st) spdlog::warn("audit: {}", st.error().message);
}

}  // namespace skillhost::app
