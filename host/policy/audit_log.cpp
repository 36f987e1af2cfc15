#include "policy/audit_log.hpp"

#include "policy/audit_redaction.hpp"

#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace skillhost::policy {

namespace {

Error audit_error(const std::filesystem::path& file, std::string_view doing, int error_number) {
    Error error{"AUDIT_WRITE_FAILED",
                "audit log " + file.string() + ": " + std::string(doing) + " failed: " + std::strerror(error_number) +
                    "; check that the home directory is writable and has free space",
                {},
                {}};
    error.details["file"] = file.string();
    return error;
}

double milliseconds(std::chrono::microseconds duration) {
    return static_cast<double>(duration.count()) / 1000.0;
}

}  // namespace

AuditLog::AuditLog(std::filesystem::path directory, AuditOptions options)
    : directory_(std::move(directory)), options_(std::move(options)) {}

Result<std::unique_ptr<AuditLog>> AuditLog::open(const std::filesystem::path& directory, AuditOptions options) {
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec) return audit_error(directory, "creating the directory", ec.value());
    return std::unique_ptr<AuditLog>(new AuditLog(directory, std::move(options)));
}

AuditLog::~AuditLog() {
    if (fd_ >= 0) {
        if (options_.fsync != FsyncPolicy::never && dirty_) ::fdatasync(fd_);
        ::close(fd_);
    }
}

std::string AuditLog::file_name_for(TimePoint time) {
    return format_utc_date(time) + ".jsonl";
}

Status AuditLog::append(std::string_view kind, boost::json::object fields) {
    const TimePoint at = options_.clock ? options_.clock() : std::chrono::system_clock::now();
    boost::json::object record;
    record["ts"] = format_utc_timestamp(at);
    record["kind"] = kind;
    for (auto& entry : fields) {
        const std::string_view key = entry.key();
        if (key == "arguments" || key == "details" || key == "result") {
            record[key] = redact_and_truncate(entry.value(), options_.max_value_chars);
        } else {
            record[key] = std::move(entry.value());
        }
    }
    std::string line = boost::json::serialize(record);
    line.push_back('\n');
    std::lock_guard lock(mutex_);
    return write_line(line, at);
}

Status AuditLog::write_line(const std::string& line, TimePoint at) {
    const std::string date = format_utc_date(at);
    const std::filesystem::path file = directory_ / (date + ".jsonl");
    if (date != open_date_ || fd_ < 0) {
        if (fd_ >= 0) {
            if (options_.fsync != FsyncPolicy::never && dirty_) ::fdatasync(fd_);
            ::close(fd_);
            fd_ = -1;
        }
        fd_ = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
        if (fd_ < 0) return audit_error(file, "opening", errno);
        open_date_ = date;
        dirty_ = false;
    }
    // One write() per record keeps lines whole when several processes append to the same file.
    std::size_t written = 0;
    while (written < line.size()) {
        const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            return audit_error(file, "appending", errno);
        }
        written += static_cast<std::size_t>(n);
    }
    dirty_ = true;
    const auto now = std::chrono::steady_clock::now();
    const bool sync = options_.fsync == FsyncPolicy::always ||
                      (options_.fsync == FsyncPolicy::interval && now - last_sync_ >= options_.fsync_interval);
    if (sync) return sync_locked();
    return {};
}

Status AuditLog::sync_locked() {
    if (fd_ < 0 || !dirty_) return {};
    if (::fdatasync(fd_) != 0) return audit_error(directory_ / (open_date_ + ".jsonl"), "syncing", errno);
    dirty_ = false;
    last_sync_ = std::chrono::steady_clock::now();
    return {};
}

Status AuditLog::flush() {
    std::lock_guard lock(mutex_);
    return sync_locked();
}

Status AuditLog::record_decision(const Decision& decision, const boost::json::value& args) {
    boost::json::object fields;
    fields["user"] = decision.user_id;
    fields["skill"] = decision.skill_id;
    fields["mode"] = to_string(decision.mode);
    fields["outcome"] = to_string(decision.outcome);
    fields["step"] = to_string(decision.step);
    fields["code"] = decision.code;
    fields["reason"] = decision.reason;
    if (decision.rule) {
        fields["rule"] = decision.rule->text;
        fields["rule_location"] = decision.rule->location();
    }
    fields["args_sha256"] = argument_digest(args);
    fields["arguments"] = args;
    return append("decision", std::move(fields));
}

Status AuditLog::record_skill_call(const SkillCallAudit& call) {
    boost::json::object fields;
    fields["user"] = call.user_id;
    fields["skill"] = call.skill_id;
    fields["call_id"] = call.call_id;
    fields["requested_by"] = call.requested_by.to_text();
    fields["args_sha256"] = argument_digest(call.arguments);
    fields["arguments"] = call.arguments;
    fields["duration_ms"] = milliseconds(call.duration);
    fields["outcome"] =
        call.ok ? std::string("ok") : (call.error_code.empty() ? std::string("error") : call.error_code);
    return append("skill_call", std::move(fields));
}

Status AuditLog::record_approval(const ApprovalRecord& record, std::string_view transition, std::string_view actor) {
    boost::json::object fields;
    fields["user"] = record.user_id;
    fields["skill"] = record.skill_id;
    fields["approval_id"] = record.id;
    fields["transition"] = transition;
    fields["state"] = to_string(record.state);
    fields["actor"] = actor;
    fields["requested_by"] = record.requested_by.to_text();
    fields["args_sha256"] = argument_digest(record.arguments);
    if (!record.reason.empty()) fields["reason"] = record.reason;
    return append("approval", std::move(fields));
}

Status AuditLog::record_llm_call(const LlmCallAudit& call) {
    boost::json::object fields;
    fields["user"] = call.user_id;
    fields["run_id"] = call.run_id;
    fields["role"] = call.role;
    fields["backend"] = call.backend;
    fields["model"] = call.model;
    fields["duration_ms"] = milliseconds(call.duration);
    if (call.input_tokens >= 0) fields["input_tokens"] = call.input_tokens;
    if (call.output_tokens >= 0) fields["output_tokens"] = call.output_tokens;
    fields["outcome"] =
        call.ok ? std::string("ok") : (call.error_code.empty() ? std::string("error") : call.error_code);
    return append("llm_call", std::move(fields));
}

}  // namespace skillhost::policy
