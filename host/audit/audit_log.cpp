#include "audit/audit_log.hpp"
#include "audit/error_codes.hpp"

#include "audit/audit_redaction.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/serializer.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace skillhost::audit {

namespace {

Error audit_error(const std::filesystem::path& file, std::string_view doing, int error_number) {
    Error error{errors::kAuditWriteFailed,
                "audit log " + file.string() + ": " + std::string(doing) + " failed: " + std::strerror(error_number) +
                    "; check that the home directory is writable and has free space",
                {},
                {}};
    error.details["file"] = file.string();
    if (error_number == ENOSPC || error_number == EDQUOT) {
        error.details["cause"] = "disk_full";
    } else if (error_number == EROFS) {
        error.details["cause"] = "read_only";
    } else if (error_number == EACCES || error_number == EPERM) {
        error.details["cause"] = "permission";
    } else if (error_number == EIO) {
        error.details["cause"] = "io_error";  // the disk or file system failed: see the system log
    }
    return error;
}

double milliseconds(std::chrono::microseconds duration) {
    return static_cast<double>(duration.count()) / 1000.0;
}

// A record's JSON text written field by field, in the order and form boost::json::serialize gives
// the equivalent object: the per-call records skip building (and freeing) a json::object tree.
class RecordLine {
public:
    RecordLine(std::string_view timestamp, std::string_view kind) {
        text_.reserve(512);
        text_ += "{\"ts\":";
        put(timestamp);
        text_ += ",\"kind\":";
        put(kind);
    }
    void field(std::string_view key, std::string_view value) {
        name(key);
        put(value);
    }
    void field(std::string_view key, double value) {
        name(key);
        const boost::json::value number = value;
        serializer_.reset(&number);
        drain();
    }
    // `json` is already JSON text.
    void json_field(std::string_view key, std::string_view json) {
        name(key);
        text_ += json;
    }
    std::string finish() && {
        text_ += '}';
        return std::move(text_);
    }

private:
    void name(std::string_view key) {
        text_ += ',';
        put(key);
        text_ += ':';
    }
    void put(std::string_view text) {
        serializer_.reset(text);
        drain();
    }
    void drain() {
        char chunk[256];
        while (!serializer_.done()) {
            const boost::json::string_view part = serializer_.read(chunk, sizeof chunk);
            text_.append(part.data(), part.size());
        }
    }

    std::string text_;
    boost::json::serializer serializer_;
};

}  // namespace

AuditLog::AuditLog(std::filesystem::path directory, AuditOptions options)
    : directory_(std::move(directory)), options_(std::move(options)) {
    if (options_.fsync == FsyncPolicy::interval) syncer_ = std::thread([this] { interval_syncs(); });
}

Result<std::unique_ptr<AuditLog>> AuditLog::open(const std::filesystem::path& directory, AuditOptions options) {
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec) return audit_error(directory, "creating the directory", ec.value());
    return std::unique_ptr<AuditLog>(new AuditLog(directory, std::move(options)));
}

Result<std::unique_ptr<AuditLog>> AuditLog::open(std::unique_ptr<AuditSink> sink, AuditOptions options) {
    // The sink syncs its own way: no interval syncer thread for files that are never written.
    const FsyncPolicy fsync = options.fsync;
    options.fsync = FsyncPolicy::never;
    std::unique_ptr<AuditLog> log(new AuditLog({}, std::move(options)));
    log->options_.fsync = fsync;
    log->sink_ = std::move(sink);
    return log;
}

AuditLog::~AuditLog() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    synced_.notify_all();
    if (syncer_.joinable()) syncer_.join();
    if (fd_ >= 0) {
        if (options_.fsync != FsyncPolicy::never && synced_through_ < written_) ::fdatasync(fd_);
        ::close(fd_);
    }
}

void AuditLog::interval_syncs() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        // Parked while nothing waits to be synced; a writer that dirties the log wakes it once.
        synced_.wait(lock, [&] { return stopping_ || synced_through_ < written_; });
        if (stopping_) return;
        synced_.wait_for(lock, options_.fsync_interval, [&] { return stopping_; });
        if (stopping_) return;
        const std::uint64_t target = written_;
        lock.unlock();
        if (auto st = sync_through(target); !st) spdlog::warn("audit: {}", st.error().message);
        lock.lock();
    }
}

std::string AuditLog::file_name_for(TimePoint time) {
    return format_utc_date(time) + ".jsonl";
}

TimePoint AuditLog::now() const {
    return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

Status AuditLog::append(std::string_view kind, boost::json::object fields) {
    const TimePoint at = now();
    boost::json::object record;
    record.reserve(fields.size() + 2);
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
    const auto* user = record.if_contains("user");
    return append_line(at, kind, user != nullptr && user->is_string() ? std::string_view(user->as_string()) : "",
                       boost::json::serialize(record));
}

Status AuditLog::append_line(TimePoint at, std::string_view kind, std::string_view user, std::string line,
                             bool gates_execution) {
    if (sink_) return sink_->append(at, kind, user, line, gates_execution);
    line.push_back('\n');
    std::uint64_t sequence = 0;
    bool first_unsynced = false;
    {
        std::lock_guard lock(mutex_);
        auto written = write_line(line, at);
        if (!written) return written.error();
        sequence = written.value();
        first_unsynced = sequence == synced_through_ + 1;
    }
    if (options_.fsync == FsyncPolicy::always) return sync_through(sequence);
    // Wakes the parked interval syncer once per batch, not once per record.
    if (options_.fsync == FsyncPolicy::interval && first_unsynced) synced_.notify_all();
    return {};
}

Result<std::uint64_t> AuditLog::write_line(const std::string& line, TimePoint at) {
    // The day, compared as a number: formatting it and joining the path cost more than the write's
    // own user time, and are needed only when the file changes (or a message names it).
    const auto day = std::chrono::floor<std::chrono::days>(at);
    if (day != open_day_ || fd_ < 0) {
        const std::string date = format_utc_date(at);
        const std::filesystem::path file = directory_ / (date + ".jsonl");
        if (fd_ >= 0) {
            // Day rollover: the old file's records are synced before its descriptor goes.
            std::unique_lock lock(mutex_, std::adopt_lock);
            synced_.wait(lock, [&] { return !syncing_; });
            lock.release();
            if (options_.fsync != FsyncPolicy::never && synced_through_ < written_) {
                if (::fdatasync(fd_) != 0) {
                    failed_through_ = written_;
                    failed_errno_ = errno;
                } else {
                    synced_through_ = written_;
                }
            }
            synced_.notify_all();
            ::close(fd_);
            fd_ = -1;
        }
        // Read access too: the file's last byte tells whether its last record is whole.
        fd_ = ::open(file.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
        if (fd_ < 0) return audit_error(file, "opening", errno);
        open_date_ = date;
        open_day_ = day;
        tail_may_be_torn_ = true;  // a process killed mid-write may have left half a record
    }
    const auto file = [this] { return directory_ / (open_date_ + ".jsonl"); };
    // A record starts on a line boundary: a torn tail (a write cut short by a full disk, a kill
    // mid-record) is terminated first, so it stays one unreadable line and does not swallow this one.
    // The newline goes in the record's own write(), keeping it one write when processes share the file.
    const std::string* text = &line;
    std::string terminated;
    if (tail_may_be_torn_) {
        if (ends_mid_line(fd_)) {
            spdlog::warn(
                "audit: {} ends in a partial record (a write was cut short); it is terminated and "
                "left as an unreadable line before the next record",
                file().string());
            terminated.reserve(line.size() + 1);
            terminated.push_back('\n');
            terminated += line;
            text = &terminated;
        }
        tail_may_be_torn_ = false;
    }
    std::size_t done = 0;
    while (done < text->size()) {
        const ssize_t n = ::write(fd_, text->data() + done, text->size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int failed = errno;
            // Part of this record may be on disk: the next record looks before it writes.
            tail_may_be_torn_ = true;
            return audit_error(file(), "appending", failed);
        }
        done += static_cast<std::size_t>(n);
    }
    return ++written_;
}

bool AuditLog::ends_mid_line(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size <= 0) return false;
    char last = '\n';
    if (::pread(fd, &last, 1, st.st_size - 1) != 1) return false;
    return last != '\n';
}

Status AuditLog::sync_through(std::uint64_t sequence) {
    std::unique_lock lock(mutex_);
    for (;;) {
        if (synced_through_ >= sequence) return {};
        if (failed_through_ >= sequence)
            return audit_error(directory_ / (open_date_ + ".jsonl"), "syncing", failed_errno_);
        if (!syncing_) break;
        // Another thread is syncing; if that sync began before this record was written, the
        // next one (led by one of the waiters) covers it.
        synced_.wait(lock);
    }
    syncing_ = true;
    const std::uint64_t target = written_;  // everything written so far goes to disk with this sync
    const int fd = fd_;
    lock.unlock();
    const int failed = fd >= 0 && ::fdatasync(fd) != 0 ? errno : 0;
    lock.lock();
    syncing_ = false;
    if (failed) {
        // Every waiter whose record this sync should have covered gets the error.
        failed_through_ = std::max(failed_through_, target);
        failed_errno_ = failed;
    } else {
        synced_through_ = std::max(synced_through_, target);
    }
    synced_.notify_all();
    if (failed) return audit_error(directory_ / (open_date_ + ".jsonl"), "syncing", failed);
    return {};
}

Status AuditLog::flush() {
    if (sink_) return sink_->flush();
    std::uint64_t target = 0;
    {
        std::lock_guard lock(mutex_);
        target = written_;
    }
    return sync_through(target);
}

// The two records of every call are written as text directly (same fields, same order as append()
// would give them): they are on every call's path.
Status AuditLog::record_decision(const DecisionAudit& decision, const boost::json::value& args) {
    const TimePoint at = now();
    const AuditedArguments audited = audited_arguments(args, options_.max_value_chars);
    RecordLine line(format_utc_timestamp(at), "decision");
    line.field("user", decision.user_id);
    line.field("skill", decision.skill_id);
    line.field("mode", decision.mode);
    line.field("outcome", decision.outcome);
    line.field("step", decision.step);
    line.field("code", decision.code);
    line.field("reason", decision.reason);
    if (decision.rule) {
        line.field("rule", *decision.rule);
        line.field("rule_location", decision.rule_location);
    }
    line.field("args_sha256", audited.sha256);
    line.json_field("arguments", audited.text);
    return append_line(at, "decision", decision.user_id, std::move(line).finish(), true);
}

Status AuditLog::record_skill_call(const SkillCallAudit& call) {
    const TimePoint at = now();
    const AuditedArguments audited = audited_arguments(call.arguments, options_.max_value_chars);
    RecordLine line(format_utc_timestamp(at), "skill_call");
    line.field("user", call.user_id);
    line.field("skill", call.skill_id);
    line.field("call_id", call.call_id);
    line.field("requested_by", call.requested_by.to_text());
    line.field("args_sha256", audited.sha256);
    line.json_field("arguments", audited.text);
    line.field("duration_ms", milliseconds(call.duration));
    line.field("outcome", call.ok ? std::string_view("ok")
                                  : (call.error_code.empty() ? std::string_view("error") : call.error_code));
    return append_line(at, "skill_call", call.user_id, std::move(line).finish());
}

Status AuditLog::record_llm_call(const LlmCallAudit& call) {
    boost::json::object fields;
    fields["user"] = call.user_id;
    fields["run_id"] = call.run_id;
    fields["role"] = call.role;
    fields["backend"] = call.backend;
    fields["model"] = call.model;
    if (!call.sampled_by.empty()) fields["sampled_by"] = call.sampled_by;
    fields["duration_ms"] = milliseconds(call.duration);
    if (call.input_tokens >= 0) fields["input_tokens"] = call.input_tokens;
    if (call.output_tokens >= 0) fields["output_tokens"] = call.output_tokens;
    fields["outcome"] =
        call.ok ? std::string("ok") : (call.error_code.empty() ? std::string("error") : call.error_code);
    return append("llm_call", std::move(fields));
}

}  // namespace skillhost::audit
