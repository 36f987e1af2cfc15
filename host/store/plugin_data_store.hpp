// The records plugins keep through "skillhost.storage/1": one store per (plugin, user), collections
// of records keyed by string with JSON values and versions, per-collection sequences, and batches
// of writes applied all or nothing. The same SQL on both backends (db::BackendConnection): the
// SQLite file of a home, or the PostgreSQL database several daemons share, so every instance sees
// the same records. Every limit is checked here, with the error the ABI documents. Thread-safe.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::store {

// Whose store: the plugin making the call and the call's user, both as the host knows them.
struct DataOwner {
    std::string plugin;
    std::string user;
};

// The limits of skill_abi.h (SKILLHOST_STORAGE_MAX_*); tests lower them.
struct PluginDataLimits {
    std::size_t max_collection_bytes = 64;
    std::size_t max_key_bytes = 512;
    std::size_t max_value_bytes = 256 * 1024;
    std::int64_t max_records = 100000;
    std::int64_t max_bytes = std::int64_t{64} * 1024 * 1024;
    std::size_t max_batch_operations = 100;
    std::size_t max_list_limit = 1000;
    std::size_t max_page_bytes = 4 * 1024 * 1024;
};

// expected_version: no precondition.
inline constexpr std::int64_t kAnyVersion = -1;

struct StoredRecord {
    std::string key;
    std::string value_json;
    std::int64_t version = 0;
};

struct RecordPage {
    std::vector<StoredRecord> records;
    std::optional<std::string> next_cursor;  // nullopt: nothing more
};

// One write of a batch.
struct RecordWrite {
    enum class Kind { put, remove, check, advance_sequence };
    Kind kind = Kind::put;
    std::string collection;
    std::string key;                              // not for advance_sequence
    std::string value_json;                       // put: one valid JSON value
    std::int64_t expected_version = kAnyVersion;  // put, remove, check (check: never kAnyVersion)
    std::int64_t sequence_to = 0;                 // advance_sequence: next_id() answers more than this
};

// What one write did.
struct WriteOutcome {
    std::int64_t version = 0;  // put: the new version; check: the record's version (0: absent)
    bool created = false;      // put: there was no record before
    bool removed = false;      // remove: there was a record
    std::int64_t last_id = 0;  // advance_sequence: the sequence's last number now
};

class PluginDataStore {
public:
    static Result<std::unique_ptr<PluginDataStore>> open(const db::StorageLocation& location,
                                                         PluginDataLimits limits = {});
    PluginDataStore(std::unique_ptr<db::BackendConnection> connection, PluginDataLimits limits);

    const PluginDataLimits& limits() const { return limits_; }

    Result<std::optional<StoredRecord>> get(const DataOwner& owner, std::string_view collection,
                                            std::string_view key) const;
    // `cursor` is a next_cursor this gave, or empty; limit 1..max_list_limit.
    Result<RecordPage> list(const DataOwner& owner, std::string_view collection, std::string_view prefix,
                            std::string_view cursor, std::int64_t limit) const;
    Result<std::int64_t> next_id(const DataOwner& owner, std::string_view collection);
    // All or nothing: STORAGE_CONFLICT (details.index) when a precondition fails, and nothing is written.
    Result<std::vector<WriteOutcome>> write(const DataOwner& owner, const std::vector<RecordWrite>& writes);

private:
    Status check_owner(const DataOwner& owner) const;
    Status check_collection(std::string_view collection) const;
    Status check_key(std::string_view key, std::string_view what) const;
    Status check_write(const RecordWrite& write, std::size_t index) const;

    std::unique_ptr<db::BackendConnection> connection_;
    PluginDataLimits limits_;
};

// The smallest string greater than every string that starts with `prefix` (byte order, valid
// UTF-8), or nullopt when there is none (an empty prefix, or one of only U+10FFFF): list()'s upper
// bound, so a prefix is a range of the key index on both backends.
std::optional<std::string> prefix_upper_bound(std::string_view prefix);

}  // namespace skillhost::store
