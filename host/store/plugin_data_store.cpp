#include "store/plugin_data_store.hpp"
#include "store/error_codes.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <string>

namespace skillhost::store {
namespace {

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Error too_large(std::string_view limit, std::size_t max, std::size_t actual, std::string message) {
    Error error{errors::kStorageTooLarge, std::move(message)};
    error.details["limit"] = limit;
    error.details["max"] = max;
    error.details["actual"] = actual;
    return error;
}

// True for UTF-8 text without NUL, overlong forms or surrogates.
bool valid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0) return false;
        std::size_t length = 0;
        std::uint32_t code = 0;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if ((c & 0xE0) == 0xC0)
            length = 2, code = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            length = 3, code = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            length = 4, code = c & 0x07;
        else
            return false;
        if (i + length > text.size()) return false;
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80) return false;
            code = (code << 6) | (next & 0x3F);
        }
        constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
        i += length;
    }
    return true;
}

void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

// The store's usage row, locked for the transaction (the upsert takes the row lock on PostgreSQL;
// SQLite's BEGIN IMMEDIATE already serialises writers): every write to one store queues here.
struct Usage {
    std::int64_t records = 0, bytes = 0, last_version = 0;
};

Result<Usage> lock_usage(db::SqlSession& session, const DataOwner& owner) {
    auto rows = session.run("locking a plugin's store",
                            "INSERT INTO plugin_data_usage(plugin, user_id, records, bytes, last_version) "
                            "VALUES(?, ?, 0, 0, 0) ON CONFLICT(plugin, user_id) DO UPDATE SET "
                            "records = plugin_data_usage.records RETURNING records, bytes, last_version",
                            {owner.plugin, owner.user});
    if (!rows) return rows.error();
    if (rows->size() != 1) return Error{errors::kStorageUnavailable, "the store's usage row could not be read"};
    return Usage{rows->integer(0, 0), rows->integer(0, 1), rows->integer(0, 2)};
}

struct Existing {
    std::int64_t version = 0;  // 0: absent
    std::int64_t size = 0;
};

Result<Existing> read_existing(db::SqlSession& session, const DataOwner& owner, const RecordWrite& write) {
    auto rows = session.run("reading a plugin record",
                            "SELECT version, size FROM plugin_records WHERE plugin = ? AND user_id = ? AND "
                            "collection = ? AND key = ?",
                            {owner.plugin, owner.user, write.collection, write.key});
    if (!rows) return rows.error();
    if (rows->size() == 0) return Existing{};
    return Existing{rows->integer(0, 0), rows->integer(0, 1)};
}

Error conflict(const RecordWrite& write, std::size_t index, std::int64_t actual) {
    const std::string expected =
        write.expected_version == 0 ? "to be absent" : "at version " + std::to_string(write.expected_version);
    const std::string found = actual == 0 ? "there is none" : "it is at version " + std::to_string(actual);
    Error error{errors::kStorageConflict, "record '" + write.key + "' of collection '" + write.collection +
                                              "' was expected " + expected + ", but " + found +
                                              "; read it again and retry with its current version"};
    error.details["collection"] = write.collection;
    error.details["key"] = write.key;
    error.details["expected_version"] = write.expected_version;
    error.details["actual_version"] = actual;
    error.details["index"] = index;
    return error;
}

Result<std::int64_t> advance(db::SqlSession& session, const DataOwner& owner, const RecordWrite& write) {
    auto rows = session.run("advancing a plugin's sequence",
                            "INSERT INTO plugin_sequences(plugin, user_id, collection, last_id) VALUES(?, ?, ?, ?) "
                            "ON CONFLICT(plugin, user_id, collection) DO UPDATE SET last_id = CASE WHEN "
                            "plugin_sequences.last_id < excluded.last_id THEN excluded.last_id ELSE "
                            "plugin_sequences.last_id END RETURNING last_id",
                            {owner.plugin, owner.user, write.collection, write.sequence_to});
    if (!rows) return rows.error();
    return rows->size() == 1 ? rows->integer(0, 0) : write.sequence_to;
}

Status check_quota(const DataOwner& owner, const PluginDataLimits& limits, const Usage& before, const Usage& after) {
    const auto over = [&](std::string_view limit, std::int64_t max, std::string what) {
        Error error{errors::kStorageQuotaExceeded, "plugin '" + owner.plugin + "' would keep more than " +
                                                       std::to_string(max) + " " + what + " for user '" + owner.user +
                                                       "'; remove records it no longer needs"};
        error.details["limit"] = limit;
        error.details["max"] = max;
        return error;
    };
    if (after.records > limits.max_records && after.records > before.records)
        return over("records", limits.max_records, "records");
    if (after.bytes > limits.max_bytes && after.bytes > before.bytes)
        return over("bytes", limits.max_bytes, "bytes of values");
    return {};
}

std::string kind_name(RecordWrite::Kind kind) {
    switch (kind) {
        case RecordWrite::Kind::put: return "put";
        case RecordWrite::Kind::remove: return "remove";
        case RecordWrite::Kind::check: return "check";
        case RecordWrite::Kind::advance_sequence: return "advance_sequence";
    }
    return "?";
}

}  // namespace

std::optional<std::string> prefix_upper_bound(std::string_view prefix) {
    std::string bound(prefix);
    while (!bound.empty()) {
        // The last code point: back over continuation bytes.
        std::size_t start = bound.size() - 1;
        while (start > 0 && (static_cast<unsigned char>(bound[start]) & 0xC0) == 0x80) --start;
        const auto lead = static_cast<unsigned char>(bound[start]);
        std::uint32_t code = lead < 0x80 ? lead : lead < 0xE0 ? lead & 0x1F : lead < 0xF0 ? lead & 0x0F : lead & 0x07;
        for (std::size_t k = start + 1; k < bound.size(); ++k)
            code = (code << 6) | (static_cast<unsigned char>(bound[k]) & 0x3F);
        bound.resize(start);
        if (code == 0x10FFFF) continue;  // no greater code point: increment the one before
        ++code;
        if (code == 0xD800) code = 0xE000;  // surrogates are not UTF-8
        append_utf8(bound, code);
        return bound;
    }
    return std::nullopt;
}

Result<std::unique_ptr<PluginDataStore>> PluginDataStore::open(const db::StorageLocation& location,
                                                               PluginDataLimits limits) {
    auto connection = db::BackendConnection::open(location);
    if (!connection) return connection.error();
    return std::make_unique<PluginDataStore>(std::move(connection.value()), limits);
}

PluginDataStore::PluginDataStore(std::unique_ptr<db::BackendConnection> connection, PluginDataLimits limits)
    : connection_(std::move(connection)), limits_(limits) {}

Status PluginDataStore::check_owner(const DataOwner& owner) const {
    if (owner.plugin.empty() || owner.user.empty())
        return Error{errors::kStorageUnavailable,
                     "plugin storage answers only during a call, for the call's user and plugin"};
    return {};
}

Status PluginDataStore::check_collection(std::string_view collection) const {
    if (collection.empty())
        return Error{errors::kStorageInvalid, "the collection name is empty; name one, e.g. \"tasks\""};
    if (collection.size() > limits_.max_collection_bytes)
        return too_large("collection", limits_.max_collection_bytes, collection.size(),
                         "the collection name has " + std::to_string(collection.size()) + " bytes, over the limit of " +
                             std::to_string(limits_.max_collection_bytes) + "; use a shorter name");
    const auto allowed = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '-';
    };
    for (const char c : collection)
        if (!allowed(c))
            return Error{errors::kStorageInvalid, "the collection name '" + std::string(collection) +
                                                      "' has a character other than letters, digits, '_', '.' and "
                                                      "'-'; use only those"};
    if (collection.front() == '_' || collection.front() == '.' || collection.front() == '-')
        return Error{errors::kStorageInvalid,
                     "the collection name '" + std::string(collection) + "' must start with a letter or a digit"};
    return {};
}

Status PluginDataStore::check_key(std::string_view key, std::string_view what) const {
    if (key.size() > limits_.max_key_bytes)
        return too_large("key", limits_.max_key_bytes, key.size(),
                         "the " + std::string(what) + " has " + std::to_string(key.size()) +
                             " bytes, over the limit of " + std::to_string(limits_.max_key_bytes) +
                             "; use a shorter key");
    if (!valid_utf8(key))
        return Error{errors::kStorageInvalid,
                     "the " + std::string(what) + " is not valid UTF-8 or holds a NUL byte; keys are UTF-8 text"};
    return {};
}

Status PluginDataStore::check_write(const RecordWrite& write, std::size_t index) const {
    const auto at = [&](Error error) {
        error.details["index"] = index;
        return error;
    };
    if (Status st = check_collection(write.collection); !st) return at(st.error());
    if (write.kind == RecordWrite::Kind::advance_sequence) {
        if (write.sequence_to < 0) return at(Error{errors::kStorageInvalid, "advance_sequence needs \"to\" >= 0"});
        return {};
    }
    if (write.key.empty()) return at(Error{errors::kStorageInvalid, "the key is empty; records need a key"});
    if (Status st = check_key(write.key, "key"); !st) return at(st.error());
    if (write.expected_version < kAnyVersion)
        return at(Error{errors::kStorageInvalid, "expected_version " + std::to_string(write.expected_version) +
                                                     " is not -1 (any), 0 (absent) or a version > 0"});
    if (write.kind == RecordWrite::Kind::check && write.expected_version == kAnyVersion)
        return at(Error{errors::kStorageInvalid, "a check needs expected_version: 0 (absent) or a version > 0"});
    if (write.kind == RecordWrite::Kind::put && write.value_json.size() > limits_.max_value_bytes)
        return at(too_large("value", limits_.max_value_bytes, write.value_json.size(),
                            "the value of '" + write.key + "' has " + std::to_string(write.value_json.size()) +
                                " bytes, over the limit of " + std::to_string(limits_.max_value_bytes) +
                                "; store less, or split it over several records"));
    return {};
}

Result<std::optional<StoredRecord>> PluginDataStore::get(const DataOwner& owner, std::string_view collection,
                                                         std::string_view key) const {
    if (Status st = check_owner(owner); !st) return st.error();
    if (Status st = check_collection(collection); !st) return st.error();
    if (key.empty()) return Error{errors::kStorageInvalid, "the key is empty; records need a key"};
    if (Status st = check_key(key, "key"); !st) return st.error();
    auto rows = connection_->run("reading a plugin record",
                                 "SELECT value, version FROM plugin_records WHERE plugin = ? AND user_id = ? AND "
                                 "collection = ? AND key = ?",
                                 {owner.plugin, owner.user, std::string(collection), std::string(key)});
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<StoredRecord>();
    return std::optional<StoredRecord>(StoredRecord{std::string(key), rows->text(0, 0), rows->integer(0, 1)});
}

Result<RecordPage> PluginDataStore::list(const DataOwner& owner, std::string_view collection, std::string_view prefix,
                                         std::string_view cursor, std::int64_t limit) const {
    if (Status st = check_owner(owner); !st) return st.error();
    if (Status st = check_collection(collection); !st) return st.error();
    if (Status st = check_key(prefix, "prefix"); !st) return st.error();
    if (Status st = check_key(cursor, "cursor"); !st) return st.error();
    if (limit < 1 || static_cast<std::uint64_t>(limit) > limits_.max_list_limit)
        return Error{errors::kStorageInvalid, "the list limit " + std::to_string(limit) + " is not between 1 and " +
                                                  std::to_string(limits_.max_list_limit)};
    std::string sql =
        "SELECT key, value, version, size FROM plugin_records WHERE plugin = ? AND user_id = ? AND collection = ? "
        "AND key > ? AND key >= ?";
    std::vector<db::SqlValue> params{owner.plugin, owner.user, std::string(collection), std::string(cursor),
                                     std::string(prefix)};
    if (const auto upper = prefix_upper_bound(prefix)) {
        sql += " AND key < ?";
        params.emplace_back(*upper);
    }
    sql += " ORDER BY key LIMIT ?";
    params.emplace_back(limit + 1);
    auto rows = connection_->run("listing plugin records", sql, params);
    if (!rows) return rows.error();
    RecordPage page;
    std::size_t bytes = 0;
    for (std::size_t row = 0; row < rows->size(); ++row) {
        const auto size = static_cast<std::size_t>(rows->integer(row, 3));
        const bool full = static_cast<std::int64_t>(page.records.size()) == limit ||
                          (!page.records.empty() && bytes + size > limits_.max_page_bytes);
        if (full) {
            page.next_cursor = page.records.back().key;
            break;
        }
        bytes += size;
        page.records.push_back(StoredRecord{rows->text(row, 0), rows->text(row, 1), rows->integer(row, 2)});
    }
    return page;
}

Result<std::int64_t> PluginDataStore::next_id(const DataOwner& owner, std::string_view collection) {
    if (Status st = check_owner(owner); !st) return st.error();
    if (Status st = check_collection(collection); !st) return st.error();
    auto rows =
        connection_->run("taking a plugin's next id",
                         "INSERT INTO plugin_sequences(plugin, user_id, collection, last_id) VALUES(?, ?, ?, 1) "
                         "ON CONFLICT(plugin, user_id, collection) DO UPDATE SET "
                         "last_id = plugin_sequences.last_id + 1 RETURNING last_id",
                         {owner.plugin, owner.user, std::string(collection)});
    if (!rows) return rows.error();
    if (rows->size() != 1) return Error{errors::kStorageUnavailable, "the sequence's next number could not be read"};
    return rows->integer(0, 0);
}

Result<std::vector<WriteOutcome>> PluginDataStore::write(const DataOwner& owner,
                                                         const std::vector<RecordWrite>& writes) {
    if (Status st = check_owner(owner); !st) return st.error();
    if (writes.empty()) return Error{errors::kStorageInvalid, "the batch has no operations; give at least one"};
    if (writes.size() > limits_.max_batch_operations)
        return too_large("batch_operations", limits_.max_batch_operations, writes.size(),
                         "the batch has " + std::to_string(writes.size()) + " operations, over the limit of " +
                             std::to_string(limits_.max_batch_operations) + "; split it");
    for (std::size_t i = 0; i < writes.size(); ++i)
        if (Status st = check_write(writes[i], i); !st) return st.error();

    std::vector<WriteOutcome> outcomes;
    const Status done = connection_->transaction([&](db::SqlSession& session) -> Status {
        outcomes.clear();
        auto usage = lock_usage(session, owner);
        if (!usage) return usage.error();
        const std::optional<Usage> before = *usage;
        const std::int64_t stamp = now_ms();
        for (std::size_t i = 0; i < writes.size(); ++i) {
            const RecordWrite& w = writes[i];
            WriteOutcome& outcome = outcomes.emplace_back();
            if (w.kind == RecordWrite::Kind::advance_sequence) {
                auto last = advance(session, owner, w);
                if (!last) return last.error();
                outcome.last_id = *last;
                continue;
            }
            auto existing = read_existing(session, owner, w);
            if (!existing) return existing.error();
            const bool expected_holds = w.expected_version == kAnyVersion || w.expected_version == existing->version;
            if (!expected_holds) return conflict(w, i, existing->version);
            if (w.kind == RecordWrite::Kind::check) {
                outcome.version = existing->version;
                continue;
            }
            if (w.kind == RecordWrite::Kind::remove) {
                if (existing->version == 0) continue;
                auto removed = session.run("removing a plugin record",
                                           "DELETE FROM plugin_records WHERE plugin = ? AND user_id = ? AND "
                                           "collection = ? AND key = ?",
                                           {owner.plugin, owner.user, w.collection, w.key});
                if (!removed) return removed.error();
                outcome.removed = true;
                usage->records -= 1;
                usage->bytes -= existing->size;
                continue;
            }
            const auto size = static_cast<std::int64_t>(w.value_json.size());
            outcome.created = existing->version == 0;
            outcome.version = ++usage->last_version;
            usage->records += outcome.created ? 1 : 0;
            usage->bytes += size - existing->size;
            auto put = session.run(
                "writing a plugin record",
                "INSERT INTO plugin_records(plugin, user_id, collection, key, value, size, version, updated_ms) "
                "VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(plugin, user_id, collection, key) DO UPDATE SET "
                "value = excluded.value, size = excluded.size, version = excluded.version, "
                "updated_ms = excluded.updated_ms",
                {owner.plugin, owner.user, w.collection, w.key, w.value_json, size, outcome.version, stamp});
            if (!put) return put.error();
        }
        // Checked on the outcome, so a batch that removes as much as it adds fits in a full store.
        if (Status st = check_quota(owner, limits_, *before, *usage); !st) return st;
        auto saved = session.run("counting a plugin's records",
                                 "UPDATE plugin_data_usage SET records = ?, bytes = ?, last_version = ? "
                                 "WHERE plugin = ? AND user_id = ?",
                                 {usage->records, usage->bytes, usage->last_version, owner.plugin, owner.user});
        if (!saved) return saved.error();
        return {};
    });
    if (!done) {
        Error error = done.error();
        if (error.is(errors::kStorageConflict) || error.is(errors::kStorageQuotaExceeded)) {
            const auto index = error.details.if_contains("index");
            if (index && index->is_uint64() && index->get_uint64() < writes.size())
                error.details["op"] = kind_name(writes[index->get_uint64()].kind);
        }
        return error;
    }
    return outcomes;
}

}  // namespace skillhost::store
