#include "server/metrics.hpp"

#include "base/json_text.hpp"
#include "plugin/supervision_counters.hpp"

#include <algorithm>

namespace skillhost::server {

std::string metric_label(std::string_view name, std::string_view value) {
    std::string out(name);
    out += "=\"";
    for (char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    out += '"';
    return out;
}

namespace {

std::string number(double v) {
    return format_json_number(v);
}

// "0.0001" rather than "1e-04": the bucket labels people read and query by.
std::string bound_label(double v) {
    std::string text = std::to_string(v);  // fixed, 6 decimals
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void sample(std::string& out, std::string_view name, const std::string& labels, std::string_view value) {
    out.append(name);
    if (!labels.empty()) out.append("{").append(labels).append("}");
    out.append(" ").append(value).append("\n");
}

void render_counters(std::string& out, std::string_view name, std::string_view help,
                     const std::map<std::string, std::uint64_t>& family) {
    header(out, name, "counter", help);
    for (const auto& [labels, value] : family) sample(out, name, labels, std::to_string(value));
}

void gauge(std::string& out, std::string_view name, std::string_view help, std::uint64_t value) {
    header(out, name, "gauge", help);
    sample(out, name, "", std::to_string(value));
}

}  // namespace

Metrics::Metrics()
    : bounds_{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60} {
}

void Metrics::observe(std::map<Labels, Histogram>& family, const Labels& labels, double value) {
    auto& h = family[labels];
    if (h.buckets.empty()) h.buckets.assign(bounds_.size(), 0);
    const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
    if (it != bounds_.end()) ++h.buckets[static_cast<std::size_t>(it - bounds_.begin())];
    h.sum += value;
    ++h.count;
}

// A client chooses the method token freely; anything but the standard methods is counted as
// "other" so requests cannot grow the label set (and the scrape) without bound.
std::string_view method_label(std::string_view method) {
    static constexpr std::string_view known[] = {"GET",     "HEAD",    "POST",  "PUT",  "DELETE",
                                                 "OPTIONS", "CONNECT", "TRACE", "PATCH"};
    for (std::string_view m : known) {
        if (m == method) return m;
    }
    return "other";
}

void Metrics::record_request(std::string_view method, std::string_view route, unsigned status, double seconds) {
    const std::string route_label = metric_label("route", route);
    const std::string labels = metric_label("method", method_label(method)) + "," + route_label + "," +
                               metric_label("status", std::to_string(status));
    std::lock_guard lock(mutex_);
    ++requests_[labels];
    observe(request_seconds_, route_label, seconds);
}

void Metrics::record_skill_call(std::string_view skill, bool ok, std::string_view error_code, double seconds) {
    const std::string skill_label = metric_label("skill", skill);
    std::lock_guard lock(mutex_);
    ++skill_calls_[skill_label + "," + metric_label("outcome", ok ? "ok" : "error")];
    if (!ok) ++skill_errors_[skill_label + "," + metric_label("code", error_code)];
    observe(skill_seconds_, skill_label, seconds);
}

void Metrics::record_llm_call(const llm::LlmCallRecord& record) {
    const std::string role = metric_label("role", record.role);
    std::lock_guard lock(mutex_);
    ++llm_calls_[role + "," + metric_label("outcome", record.ok ? "ok" : "error")];
    observe(llm_seconds_, role, std::chrono::duration<double>(record.latency).count());
    llm_tokens_[role + "," + metric_label("kind", "prompt")] +=
        static_cast<std::uint64_t>(std::max(0, record.prompt_tokens));
    llm_tokens_[role + "," + metric_label("kind", "completion")] +=
        static_cast<std::uint64_t>(std::max(0, record.completion_tokens));
}

void Metrics::record_reload(const reload::ReloadReport& report) {
    std::lock_guard lock(mutex_);
    ++reloads_;
    for (const auto& unit : report.units) {
        if (unit.outcome == reload::UnitOutcome::failed || unit.outcome == reload::UnitOutcome::failed_keeping_previous)
            ++reload_failures_;
    }
}

void Metrics::render_histograms(std::string& out, std::string_view name, std::string_view help,
                                const std::map<Labels, Histogram>& family, const std::vector<double>& bounds) {
    header(out, name, "histogram", help);
    const std::string bucket = std::string(name) + "_bucket";
    for (const auto& [labels, h] : family) {
        std::uint64_t cumulative = 0;
        const std::string prefix = labels.empty() ? "" : labels + ",";
        for (std::size_t i = 0; i < bounds.size(); ++i) {
            cumulative += h.buckets[i];
            sample(out, bucket, prefix + metric_label("le", bound_label(bounds[i])), std::to_string(cumulative));
        }
        sample(out, bucket, prefix + metric_label("le", "+Inf"), std::to_string(h.count));
        sample(out, std::string(name) + "_sum", labels, number(h.sum));
        sample(out, std::string(name) + "_count", labels, std::to_string(h.count));
    }
}

std::string Metrics::render(const MetricGauges& g) const {
    std::string out;
    out.reserve(16384);
    {
        std::lock_guard lock(mutex_);
        render_counters(out, "skillhost_http_requests_total", "HTTP requests answered, by method, route and status.",
                        requests_);
        render_histograms(out, "skillhost_http_request_duration_seconds", "Time to answer an HTTP request, by route.",
                          request_seconds_, bounds_);
        render_counters(out, "skillhost_skill_calls_total", "Skill calls executed, by skill and outcome (ok, error).",
                        skill_calls_);
        render_counters(out, "skillhost_skill_errors_total", "Skill calls that failed, by skill and error code.",
                        skill_errors_);
        render_histograms(out, "skillhost_skill_call_duration_seconds", "Skill call latency, by skill.", skill_seconds_,
                          bounds_);
        render_counters(out, "skillhost_llm_calls_total", "Model calls, by role and outcome.", llm_calls_);
        render_histograms(out, "skillhost_llm_call_duration_seconds", "Model call latency, by role.", llm_seconds_,
                          bounds_);
        render_counters(out, "skillhost_llm_tokens_total", "Model tokens, by role and kind (prompt, completion).",
                        llm_tokens_);
        header(out, "skillhost_catalog_reloads_total", "counter", "Catalog rebuilds that changed the catalog.");
        sample(out, "skillhost_catalog_reloads_total", "", std::to_string(reloads_));
        header(out, "skillhost_catalog_reload_failures_total", "counter",
               "Plugins that failed to load or reload (a failed reload keeps the previous version).");
        sample(out, "skillhost_catalog_reload_failures_total", "", std::to_string(reload_failures_));
    }
    {
        // Per plugin (a bounded label set: past 200 plugins the rest count as "other").
        const auto plugins = plugin::supervision_counters().by_plugin();
        const auto per_plugin = [&](const char* name, const char* type, const char* help, auto value) {
            header(out, name, type, help);
            for (const auto& p : plugins) sample(out, name, metric_label("plugin", p.plugin), std::to_string(value(p)));
        };
        using Stats = plugin::PluginSupervisionStats;
        per_plugin("skillhost_plugin_crashes_total", "counter", "Plugin runner processes that crashed or exited.",
                   [](const Stats& p) { return p.crashes; });
        per_plugin("skillhost_plugin_kills_total", "counter",
                   "Plugin runners killed because a call ignored its deadline or cancellation.",
                   [](const Stats& p) { return p.kills; });
        per_plugin("skillhost_plugin_restarts_total", "counter", "Plugin runners started again after a crash.",
                   [](const Stats& p) { return p.restarts; });
        per_plugin("skillhost_plugin_quarantines_total", "counter", "Plugins quarantined after repeated crashes.",
                   [](const Stats& p) { return p.quarantines; });
        per_plugin("skillhost_plugin_runners", "gauge", "Plugin runner processes alive.",
                   [](const Stats& p) { return p.runners; });
        per_plugin("skillhost_plugin_runner_resident_bytes", "gauge", "Resident memory of a plugin's runners.",
                   [](const Stats& p) { return p.resident_bytes; });
    }
    gauge(out, "skillhost_catalog_version", "Version of the catalog being served.", g.catalog_version);
    gauge(out, "skillhost_plugins_loaded", "Plugins in the catalog.", g.plugins_loaded);
    gauge(out, "skillhost_plugin_failures", "Plugins that failed to load and are not served.", g.plugin_failures);
    gauge(out, "skillhost_skills_loaded", "Skills in the catalog.", g.skills_loaded);
    gauge(out, "skillhost_approvals_pending", "Approvals waiting for a decision.", g.approvals_pending);
    gauge(out, "skillhost_http_requests_in_flight", "HTTP requests being handled.", g.requests_in_flight);
    gauge(out, "skillhost_event_streams_open", "Open event streams (SSE).", g.streams_open);
    gauge(out, "skillhost_runs_active", "Operator runs working in this process.", g.runs_active);
    header(out, "skillhost_runs", "gauge", "Operator runs in the run store, by status.");
    for (const auto& [status, n] : g.runs_by_status)
        sample(out, "skillhost_runs", metric_label("status", status), std::to_string(n));
    header(out, "skillhost_grounding_checks_total", "counter",
           "Model answers checked against the observations they came from.");
    sample(out, "skillhost_grounding_checks_total", "", std::to_string(g.grounding_checks));
    header(out, "skillhost_grounding_failures_total", "counter",
           "Checked answers with items the observations do not support, by what the user got.");
    sample(out, "skillhost_grounding_failures_total", metric_label("outcome", "passed_after_regeneration"),
           std::to_string(g.grounding_regenerated));
    sample(out, "skillhost_grounding_failures_total", metric_label("outcome", "withheld"),
           std::to_string(g.grounding_withheld));
    return out;
}

void SkillCallMetrics::on_call(std::string_view skill_id, const exec::SkillResult& result) {
    metrics_.record_skill_call(skill_id, result.ok,
                               result.ok ? std::string_view{} : std::string_view(result.error.code),
                               std::chrono::duration<double>(result.duration).count());
}

}  // namespace skillhost::server
