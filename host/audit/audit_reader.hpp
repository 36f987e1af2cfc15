// Reading the audit log back for `skillhost audit tail [--follow] [--user U] [--skill S] [--since T]`.
#pragma once

#include "base/error.hpp"
#include "base/utc_time.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::audit {

struct AuditFilter {
    std::optional<std::string> user;   // exact user id
    std::optional<std::string> skill;  // skill id or glob, e.g. fs_*
    std::optional<std::string> kind;   // decision, skill_call, approval, llm_call
    std::optional<TimePoint> since;    // records at or after this time

    bool matches(const boost::json::object& record) const;
};

struct AuditBatch {
    std::vector<boost::json::object> records;  // in file order, oldest day first
    // Lines that are not JSON objects, as "file:line: what is wrong" (e.g. a hand-edited file).
    std::vector<std::string> problems;
};

// Remembers how far it has read each day's file: the first poll() returns every matching record,
// later polls only records appended since, including new day files. A line still being written
// (no trailing newline yet) is returned once it is complete.
class AuditTail {
public:
    AuditTail(std::filesystem::path directory, AuditFilter filter);
    Result<AuditBatch> poll();

private:
    struct Cursor {
        std::uintmax_t offset = 0;
        std::size_t line = 0;
    };
    std::filesystem::path directory_;
    AuditFilter filter_;
    std::map<std::string, Cursor> cursors_;  // by file name; names sort by date
};

// One line for `audit tail`: "<ts> <kind> <user> <skill> <outcome/transition> <details>".
std::string format_audit_record(const boost::json::object& record);

// Every matching record now in the log. A missing audit directory is an empty log.
Result<AuditBatch> read_audit_log(const std::filesystem::path& directory, const AuditFilter& filter);

struct AuditPage {
    AuditBatch batch;   // the newest `limit` matching records, oldest first
    bool more = false;  // older matching records may exist (the page is full)
};

// The newest `limit` matching records, read backwards from the end of the newest day file: only
// the files and the part of them that the page needs (and nothing older than filter.since) are
// read, so the cost does not grow with the history. A line still being written is skipped;
// problems name the file and the byte offset of the line. `also`, when given, must accept a
// record too (e.g. contains_text).
Result<AuditPage> read_audit_page(const std::filesystem::path& directory, const AuditFilter& filter, std::size_t limit,
                                  const std::function<bool(const boost::json::object&)>& also = {});

// True when the record's compact JSON contains `text` (plain text, no pattern syntax): finds a
// call id, an approval id or a file name among the arguments.
bool contains_text(const boost::json::object& record, std::string_view text);

// Polls every `interval`, handing each non-empty batch to on_batch, until keep_going() is false.
Status follow_audit_log(const std::filesystem::path& directory, const AuditFilter& filter,
                        const std::function<void(const AuditBatch&)>& on_batch, const std::function<bool()>& keep_going,
                        std::chrono::milliseconds interval = std::chrono::milliseconds(250));

}  // namespace skillhost::audit
