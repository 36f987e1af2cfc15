#include "audit/audit_outbox.hpp"
#include "audit/error_codes.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <random>
#include <string_view>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace skillhost::audit {

namespace json = boost::json;

namespace {

Error outbox_error(const std::filesystem::path& file, std::string_view doing, int error_number) {
    Error error{errors::kAuditWriteFailed,
                "audit outbox " + file.string() + ": " + std::string(doing) + " failed: " +
                    std::strerror(error_number) + "; check that the home directory is writable and has free space",
                {},
                {}};
    error.details["file"] = file.string();
    if (error_number == ENOSPC || error_number == EDQUOT) error.details["cause"] = "disk_full";
    if (error_number == EROFS) error.details["cause"] = "read_only";
    if (error_number == EACCES || error_number == EPERM) error.details["cause"] = "permission";
    return error;
}

// flock for as long as it lives: the processes of one home take turns.
class FileLock {
public:
    explicit FileLock(int fd) : fd_(fd) {
        while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
    }
    ~FileLock() { ::flock(fd_, LOCK_UN); }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_;
};

bool write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

std::optional<std::string> read_all(int fd) {
    std::string text;
    char buffer[65536];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::nullopt;
        }
        if (n == 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
        at += n;
    }
}

std::optional<OutboxRecord> parse_line(std::string_view line) {
    boost::system::error_code ec;
    auto value = json::parse(line, ec);
    if (ec || !value.is_object()) return std::nullopt;
    const auto& o = value.as_object();
    const auto* id = o.if_contains("id");
    const auto* ts = o.if_contains("ts_ms");
    const auto* kind = o.if_contains("kind");
    const auto* user = o.if_contains("user");
    const auto* record = o.if_contains("record");
    if (!id || !id->is_string() || !ts || !ts->is_int64() || !kind || !kind->is_string() || !user ||
        !user->is_string() || !record || !record->is_string())
        return std::nullopt;
    return OutboxRecord{std::string(id->as_string()), ts->as_int64(), std::string(kind->as_string()),
                        std::string(user->as_string()), std::string(record->as_string())};
}

}  // namespace

Result<std::unique_ptr<AuditOutbox>> AuditOutbox::open(std::filesystem::path file, std::size_t max_bytes) {
    const int fd = ::open(file.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) return outbox_error(file, "opening", errno);
    std::unique_ptr<AuditOutbox> outbox(new AuditOutbox(std::move(file), fd, max_bytes));
    FileLock lock(fd);
    if (auto st = outbox->cut_torn_tail(); !st) return st.error();
    return outbox;
}

AuditOutbox::~AuditOutbox() {
    ::close(fd_);
}

std::string AuditOutbox::new_id() {
    static thread_local std::mt19937_64 random{std::random_device{}() ^
                                               (static_cast<std::uint64_t>(std::random_device{}()) << 32)};
    static constexpr char digits[] = "0123456789abcdef";
    std::string id;
    for (int word = 0; word < 2; ++word) {
        std::uint64_t bits = random();
        for (int i = 0; i < 16; ++i, bits >>= 4) id.push_back(digits[bits & 0xf]);
    }
    return id;
}

// A record is acknowledged only after its newline is on disk, so bytes after the last newline
// belong to an append that never finished: nobody was told it was kept.
Status AuditOutbox::cut_torn_tail() {
    const std::int64_t bytes = size();
    char final_byte = '\n';
    if (bytes == 0 || (::pread(fd_, &final_byte, 1, bytes - 1) == 1 && final_byte == '\n')) return {};
    auto text = read_all(fd_);
    if (!text) return outbox_error(file_, "reading", errno);
    const auto last = text->rfind('\n');
    const std::size_t whole = last == std::string::npos ? 0 : last + 1;
    if (whole == text->size()) return {};
    spdlog::warn(
        "audit: {} ends in {} bytes of a record whose append did not finish (never acknowledged); they are "
        "cut off",
        file_.string(), text->size() - whole);
    if (::ftruncate(fd_, static_cast<off_t>(whole)) != 0 || ::fdatasync(fd_) != 0)
        return outbox_error(file_, "cutting off a torn tail", errno);
    return {};
}

std::int64_t AuditOutbox::size() const {
    struct stat st {};
    return ::fstat(fd_, &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
}

bool AuditOutbox::empty() const {
    return size() == 0;
}

bool AuditOutbox::full(std::size_t bytes) const {
    return static_cast<std::size_t>(size()) + bytes > max_bytes_;
}

Status AuditOutbox::append(const OutboxRecord& record) {
    std::string line = json::serialize(json::object{{"id", record.id},
                                                    {"ts_ms", record.ts_ms},
                                                    {"kind", record.kind},
                                                    {"user", record.user},
                                                    {"record", record.record}});
    line.push_back('\n');
    std::lock_guard guard(mutex_);
    FileLock lock(fd_);
    if (auto st = cut_torn_tail(); !st) return st;
    if (full(line.size())) {
        Error error{errors::kAuditWriteFailed,
                    "the audit outbox " + file_.string() + " is full (" + std::to_string(max_bytes_) +
                        " bytes of records the database has not taken yet); nothing more runs until the database "
                        "takes them",
                    {},
                    {"check that the database server is up (GET /readyz); the records go to it by themselves once "
                     "it is"}};
        error.details["file"] = file_.string();
        error.details["cause"] = "audit_outbox_full";
        return error;
    }
    if (!write_all(fd_, line)) {
        const int failed = errno;
        (void)cut_torn_tail();  // the part written is not a record
        return outbox_error(file_, "appending", failed);
    }
    if (::fdatasync(fd_) != 0) return outbox_error(file_, "syncing", errno);
    return {};
}

Result<std::size_t> AuditOutbox::drain(const std::function<Status(const std::vector<OutboxRecord>&)>& deliver) {
    std::lock_guard guard(mutex_);
    FileLock lock(fd_);
    auto text = read_all(fd_);
    if (!text) return outbox_error(file_, "reading", errno);
    std::vector<OutboxRecord> batch;
    std::size_t delivered = 0;
    std::size_t start = 0;
    for (auto end = text->find('\n'); end != std::string::npos; start = end + 1, end = text->find('\n', start)) {
        auto record = parse_line(std::string_view(*text).substr(start, end - start));
        if (!record) {
            spdlog::warn("audit: {} holds an unreadable record at byte {}; it is skipped", file_.string(), start);
            continue;
        }
        batch.push_back(std::move(*record));
        if (batch.size() == max_batch) {
            if (auto st = deliver(batch); !st) return st.error();
            delivered += batch.size();
            batch.clear();
        }
    }
    if (!batch.empty()) {
        if (auto st = deliver(batch); !st) return st.error();
        delivered += batch.size();
    }
    // Whatever follows the last newline is a torn append of this moment's writer: none, we hold
    // the lock; it is cut off with the rest.
    if (::ftruncate(fd_, 0) != 0 || ::fdatasync(fd_) != 0) return outbox_error(file_, "emptying", errno);
    return delivered;
}

}  // namespace skillhost::audit
