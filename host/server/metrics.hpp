// The daemon's metrics in Prometheus text format (version 0.0.4): counters and latency
// histograms recorded as things happen, plus gauges read when /metrics is scraped.
#pragma once

#include "exec/call_observer.hpp"
#include "llm/llm_call_observer.hpp"
#include "reload/reload_report.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::server {

// Values read at scrape time.
struct MetricGauges {
    std::uint64_t catalog_version = 0;
    std::uint64_t plugins_loaded = 0;
    std::uint64_t plugin_failures = 0;
    std::uint64_t skills_loaded = 0;
    std::uint64_t approvals_pending = 0;
    std::uint64_t requests_in_flight = 0;
    std::uint64_t streams_open = 0;
    std::map<std::string, std::uint64_t> runs_by_status;  // from the run store
    std::uint64_t runs_active = 0;                        // working in this process now
    // The operator's grounding checks since it started (monotonic counters kept by the operator).
    std::uint64_t grounding_checks = 0;       // model answers checked against their observations
    std::uint64_t grounding_failures = 0;     // first answers with unsupported items
    std::uint64_t grounding_regenerated = 0;  // ... whose regeneration passed
    std::uint64_t grounding_withheld = 0;     // ... replaced by the observations
};

class Metrics {
public:
    Metrics();

    void record_request(std::string_view method, std::string_view route, unsigned status, double seconds);
    void record_skill_call(std::string_view skill, bool ok, std::string_view error_code, double seconds);
    void record_llm_call(const llm::LlmCallRecord& record);
    void record_reload(const reload::ReloadReport& report);

    std::string render(const MetricGauges& gauges) const;

private:
    struct Histogram {
        std::vector<std::uint64_t> buckets;  // cumulative counts are computed when rendering
        double sum = 0;
        std::uint64_t count = 0;
    };
    using Labels = std::string;  // rendered: name="value",...

    void observe(std::map<Labels, Histogram>& family, const Labels& labels, double value);
    static void render_histograms(std::string& out, std::string_view name, std::string_view help,
                                  const std::map<Labels, Histogram>& family, const std::vector<double>& bounds);

    const std::vector<double> bounds_;
    mutable std::mutex mutex_;
    std::map<Labels, std::uint64_t> requests_;      // method, route, status
    std::map<Labels, Histogram> request_seconds_;   // route
    std::map<Labels, std::uint64_t> skill_calls_;   // skill, outcome
    std::map<Labels, std::uint64_t> skill_errors_;  // skill, code
    std::map<Labels, Histogram> skill_seconds_;     // skill
    std::map<Labels, std::uint64_t> llm_calls_;     // role, outcome
    std::map<Labels, Histogram> llm_seconds_;       // role
    std::map<Labels, std::uint64_t> llm_tokens_;    // role, kind
    std::uint64_t reloads_ = 0;
    std::uint64_t reload_failures_ = 0;
};

// The method label of a request: the standard method names, anything else "other".
std::string_view method_label(std::string_view method);

// Label text: name="value" with \, " and newlines escaped.
std::string metric_label(std::string_view name, std::string_view value);

// Adapters that feed the metrics from the call pipeline and the model router.
class SkillCallMetrics final : public exec::CallObserver {
public:
    explicit SkillCallMetrics(Metrics& metrics) : metrics_(metrics) {}
    void on_call(std::string_view skill_id, const exec::SkillResult& result) override;

private:
    Metrics& metrics_;
};

class LlmCallMetrics final : public llm::LlmCallObserver {
public:
    explicit LlmCallMetrics(Metrics& metrics) : metrics_(metrics) {}
    void on_llm_call(const llm::LlmCallRecord& record) override { metrics_.record_llm_call(record); }

private:
    Metrics& metrics_;
};

}  // namespace skillhost::server
