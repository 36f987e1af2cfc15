#include "audit/audit_reader.hpp"
#include "audit/error_codes.hpp"

#include "base/glob.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

namespace skillhost::audit {

namespace {

std::string_view string_field(const boost::json::object& record, std::string_view key) {
    const auto* value = record.if_contains(key);
    if (value == nullptr || !value->is_string()) return {};
    return value->get_string();
}

// "YYYY-MM-DD.jsonl"
bool is_day_file(const std::string& name) {
    if (name.size() != 16 || name.compare(10, 6, ".jsonl") != 0) return false;
    for (std::size_t i = 0; i < 10; ++i) {
        const bool dash = i == 4 || i == 7;
        if (dash ? name[i] != '-' : (name[i] < '0' || name[i] > '9')) return false;
    }
    return true;
}

}  // namespace

bool AuditFilter::matches(const boost::json::object& record) const {
    if (user && string_field(record, "user") != *user) return false;
    if (kind && string_field(record, "kind") != *kind) return false;
    if (skill && !glob_match(*skill, string_field(record, "skill"))) return false;
    // Timestamps are fixed-width UTC, so string order is time order.
    if (since && string_field(record, "ts") < format_utc_timestamp(*since)) return false;
    return true;
}

bool contains_text(const boost::json::object& record, std::string_view text) {
    return boost::json::serialize(record).find(text) != std::string::npos;
}

AuditTail::AuditTail(std::filesystem::path directory, AuditFilter filter)
    : directory_(std::move(directory)), filter_(std::move(filter)) {}

Result<AuditBatch> AuditTail::poll() {
    AuditBatch batch;
    std::error_code ec;
    if (!std::filesystem::is_directory(directory_, ec)) return batch;
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(directory_, ec)) {
        const std::string name = entry.path().filename().string();
        if (is_day_file(name)) names.push_back(name);
    }
    if (ec) {
        Error error{
            errors::kAuditReadFailed,
            "cannot list " + directory_.string() + ": " + ec.message() + "; check that the home directory is readable",
            {},
            {}};
        error.details["directory"] = directory_.string();
        return error;
    }
    std::sort(names.begin(), names.end());
    const std::string first_day = filter_.since ? format_utc_date(*filter_.since) + ".jsonl" : std::string();
    for (const auto& name : names) {
        if (name < first_day) continue;
        Cursor& cursor = cursors_[name];
        std::ifstream in(directory_ / name, std::ios::binary);
        if (!in) continue;  // removed between listing and opening (log rotation by hand)
        in.seekg(static_cast<std::streamoff>(cursor.offset));
        std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::size_t start = 0;
        for (std::size_t newline; (newline = chunk.find('\n', start)) != std::string::npos; start = newline + 1) {
            ++cursor.line;
            const std::string_view line(chunk.data() + start, newline - start);
            if (line.empty()) continue;
            boost::system::error_code parse_error;
            auto value = boost::json::parse(line, parse_error);
            if (parse_error || !value.is_object()) {
                batch.problems.push_back(name + ":" + std::to_string(cursor.line) + ": not a JSON object" +
                                         (parse_error ? " (" + parse_error.message() + ")" : std::string()));
                continue;
            }
            if (filter_.matches(value.get_object())) batch.records.push_back(std::move(value.get_object()));
        }
        cursor.offset += start;  // an unfinished last line is read again next time
    }
    return batch;
}

std::string format_audit_record(const boost::json::object& record) {
    std::string line;
    auto add = [&](std::string_view text) {
        if (text.empty()) return;
        if (!line.empty()) line += ' ';
        line += text;
    };
    add(string_field(record, "ts"));
    add(string_field(record, "kind"));
    add(string_field(record, "user"));
    add(string_field(record, "skill"));
    add(string_field(record, "approval_id"));
    add(string_field(record, "transition"));
    add(string_field(record, "outcome"));
    add(string_field(record, "code"));
    if (const auto* duration = record.if_contains("duration_ms"); duration != nullptr && duration->is_number()) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1fms", duration->to_number<double>());
        add(text);
    }
    const std::string_view reason = string_field(record, "reason");
    if (!reason.empty()) add("— " + std::string(reason));
    return line;
}

Result<AuditBatch> read_audit_log(const std::filesystem::path& directory, const AuditFilter& filter) {
    return AuditTail(directory, filter).poll();
}

namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;
constexpr std::size_t kMaxLineBytes = 4 * 1024 * 1024;  // the writer truncates far below this

std::vector<std::string> day_files_newest_first(const std::filesystem::path& directory, std::error_code& ec) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
        const std::string name = entry.path().filename().string();
        if (is_day_file(name)) names.push_back(name);
    }
    std::sort(names.rbegin(), names.rend());
    return names;
}

// Reads `file` from its end in chunks, handing each complete line (newest first) with its byte
// offset to `line`, which returns false to stop. False when `line` asked to stop.
bool read_lines_backwards(const std::filesystem::path& file,
                          const std::function<bool(std::string_view, std::uintmax_t)>& line,
                          std::vector<std::string>& problems, const std::string& name) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return true;  // removed between listing and opening
    in.seekg(0, std::ios::end);
    std::uintmax_t pos = static_cast<std::uintmax_t>(std::max<std::streamoff>(0, in.tellg()));
    std::string carry;  // the start of a line whose beginning lies in an earlier chunk
    bool first_segment = true;
    std::string buffer;
    while (pos > 0) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uintmax_t>(kChunkBytes, pos));
        pos -= n;
        buffer.assign(n, '\0');
        in.seekg(static_cast<std::streamoff>(pos));
        in.read(buffer.data(), static_cast<std::streamsize>(n));
        if (static_cast<std::size_t>(in.gcount()) != n) return true;  // truncated while reading
        buffer += carry;
        std::size_t end = buffer.size();
        while (true) {
            const std::size_t newline = end == 0 ? std::string::npos : buffer.rfind('\n', end - 1);
            if (newline == std::string::npos) break;
            const std::string_view text(buffer.data() + newline + 1, end - newline - 1);
            // The segment after the file's last newline is a line still being written.
            if (!first_segment && !text.empty() && !line(text, pos + newline + 1)) return false;
            first_segment = false;
            end = newline;
        }
        carry.assign(buffer, 0, end);
        if (carry.size() > kMaxLineBytes) {
            problems.push_back(name + " at byte " + std::to_string(pos) + ": a line longer than " +
                               std::to_string(kMaxLineBytes) + " bytes was skipped");
            carry.clear();
            first_segment = true;  // the rest of that line is skipped too, up to its newline
        }
    }
    if (!first_segment && !carry.empty()) return line(carry, 0);
    return true;
}

}  // namespace

Result<AuditPage> read_audit_page(const std::filesystem::path& directory, const AuditFilter& filter, std::size_t limit,
                                  const std::function<bool(const boost::json::object&)>& also) {
    AuditPage page;
    std::error_code ec;
    if (!std::filesystem::is_directory(directory, ec)) return page;
    const auto names = day_files_newest_first(directory, ec);
    if (ec) {
        Error error{errors::kAuditReadFailed, "cannot list the audit directory: " + ec.message(), {}, {}};
        return error;
    }
    const std::string since = filter.since ? format_utc_timestamp(*filter.since) : std::string();
    const std::string first_day = filter.since ? format_utc_date(*filter.since) + ".jsonl" : std::string();
    std::vector<boost::json::object> newest_first;
    for (const auto& name : names) {
        if (name < first_day) break;
        const bool going = read_lines_backwards(
            directory / name,
            [&](std::string_view text, std::uintmax_t offset) {
                boost::system::error_code parse_error;
                auto value = boost::json::parse(text, parse_error);
                if (parse_error || !value.is_object()) {
                    page.batch.problems.push_back(name + " at byte " + std::to_string(offset) + ": not a JSON object");
                    return true;
                }
                auto& record = value.get_object();
                // Records are appended in time order: one older than `since` ends the search.
                if (!since.empty() && string_field(record, "ts") < since) return false;
                if (!filter.matches(record) || (also && !also(record))) return true;
                if (newest_first.size() == limit) {
                    page.more = true;
                    return false;
                }
                newest_first.push_back(std::move(record));
                return true;
            },
            page.batch.problems, name);
        if (!going) break;
    }
    page.batch.records.assign(std::make_move_iterator(newest_first.rbegin()),
                              std::make_move_iterator(newest_first.rend()));
    return page;
}

Status follow_audit_log(const std::filesystem::path& directory, const AuditFilter& filter,
                        const std::function<void(const AuditBatch&)>& on_batch, const std::function<bool()>& keep_going,
                        std::chrono::milliseconds interval) {
    AuditTail tail(directory, filter);
    while (true) {
        auto batch = tail.poll();
        if (!batch) return batch.error();
        if (!batch->records.empty() || !batch->problems.empty()) on_batch(*batch);
        if (!keep_going()) return {};
        std::this_thread::sleep_for(interval);
    }
}

}  // namespace skillhost::audit
