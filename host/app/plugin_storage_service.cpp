#include "app/plugin_storage_service.hpp"
#include "store/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <skillhost/skill_abi.h>

namespace skillhost::app {
namespace {

namespace json = boost::json;

// The store's default limits are the ones skill_abi.h promises plugin authors.
constexpr store::PluginDataLimits abi_limits;
static_assert(abi_limits.max_collection_bytes == SKILLHOST_STORAGE_MAX_COLLECTION_BYTES);
static_assert(abi_limits.max_key_bytes == SKILLHOST_STORAGE_MAX_KEY_BYTES);
static_assert(abi_limits.max_value_bytes == SKILLHOST_STORAGE_MAX_VALUE_BYTES);
static_assert(abi_limits.max_records == SKILLHOST_STORAGE_MAX_RECORDS);
static_assert(abi_limits.max_bytes == SKILLHOST_STORAGE_MAX_BYTES);
static_assert(abi_limits.max_batch_operations == SKILLHOST_STORAGE_MAX_BATCH_OPERATIONS);
static_assert(abi_limits.max_list_limit == SKILLHOST_STORAGE_MAX_LIST_LIMIT);
static_assert(abi_limits.max_page_bytes == SKILLHOST_STORAGE_MAX_PAGE_BYTES);

Error invalid(std::string message) {
    return Error{errors::kStorageInvalid, std::move(message)};
}

// The plugin's strings are its bytes: invalid UTF-8 reaches the store, which names the field.
Result<json::value> parse_request(std::string_view text, std::string_view what) {
    json::parse_options options;
    options.allow_invalid_utf8 = true;
    std::error_code ec;
    json::value value = json::parse(text, ec, {}, options);
    if (ec) return invalid(std::string(what) + " is not valid JSON (" + ec.message() + "); pass one JSON value");
    return value;
}

Result<std::string> text_field(const json::object& request, std::string_view name, std::string_view where,
                               bool required) {
    const json::value* field = request.if_contains(name);
    if (!field) {
        if (required) return invalid(std::string(where) + " has no \"" + std::string(name) + "\"");
        return std::string();
    }
    if (!field->is_string())
        return invalid("\"" + std::string(name) + "\" of " + std::string(where) + " is not a string");
    return std::string(field->get_string());
}

Result<std::int64_t> version_field(const json::object& request, std::string_view where) {
    const json::value* field = request.if_contains("expected_version");
    if (!field) return store::kAnyVersion;
    if (field->is_int64()) return field->get_int64();
    if (field->is_uint64() && field->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(field->get_uint64());
    return invalid("\"expected_version\" of " + std::string(where) +
                   " is not an integer: -1 (any), 0 (absent) or a version");
}

Error too_large(std::string_view limit, std::size_t max, std::size_t actual, const std::string& what,
                std::string_view remedy) {
    Error error{errors::kStorageTooLarge, what + " has " + std::to_string(actual) + " bytes, over the limit of " +
                                              std::to_string(max) + "; " + std::string(remedy)};
    error.details["limit"] = limit;
    error.details["max"] = max;
    error.details["actual"] = actual;
    return error;
}

// A value as the store keeps it: compact JSON.
Result<std::string> stored_value(const json::value& value, std::size_t max_bytes, std::string_view key) {
    std::string text = json::serialize(value);
    if (text.size() > max_bytes)
        return too_large("value", max_bytes, text.size(), "the value of '" + std::string(key) + "'",
                         "store less, or split it over several records");
    return text;
}

Result<store::RecordWrite> batch_operation(const json::value& entry, std::size_t index, std::size_t max_value_bytes) {
    const std::string where = "operation " + std::to_string(index);
    if (!entry.is_object()) return invalid(where + " of the batch is not an object");
    const json::object& op = entry.get_object();
    auto kind = text_field(op, "op", where, true);
    if (!kind) return kind.error();
    auto collection = text_field(op, "collection", where, true);
    if (!collection) return collection.error();
    store::RecordWrite write;
    write.collection = std::move(*collection);
    if (*kind == "advance_sequence") {
        write.kind = store::RecordWrite::Kind::advance_sequence;
        const json::value* to = op.if_contains("to");
        if (!to || !to->is_int64() || to->get_int64() < 0)
            return invalid("\"to\" of " + where + " (advance_sequence) is not an integer >= 0");
        write.sequence_to = to->get_int64();
        return write;
    }
    if (*kind == "put")
        write.kind = store::RecordWrite::Kind::put;
    else if (*kind == "remove")
        write.kind = store::RecordWrite::Kind::remove;
    else if (*kind == "check")
        write.kind = store::RecordWrite::Kind::check;
    else
        return invalid("\"op\" of " + where + " is '" + *kind + "'; use put, remove, check or advance_sequence");
    auto key = text_field(op, "key", where, true);
    if (!key) return key.error();
    write.key = std::move(*key);
    auto expected = version_field(op, where);
    if (!expected) return expected.error();
    write.expected_version = *expected;
    if (write.kind == store::RecordWrite::Kind::put) {
        const json::value* value = op.if_contains("value");
        if (!value) return invalid(where + " (put) has no \"value\"");
        auto text = stored_value(*value, max_value_bytes, write.key);
        if (!text) return text.error();
        write.value_json = std::move(*text);
    }
    return write;
}

json::object write_answer(const store::RecordWrite& write, const store::WriteOutcome& outcome) {
    switch (write.kind) {
        case store::RecordWrite::Kind::put: return {{"version", outcome.version}, {"created", outcome.created}};
        case store::RecordWrite::Kind::remove: return {{"removed", outcome.removed}};
        case store::RecordWrite::Kind::check: return {{"version", outcome.version}};
        case store::RecordWrite::Kind::advance_sequence: return {{"last_id", outcome.last_id}};
    }
    return {};
}

json::value stored_json(const std::string& text) {
    std::error_code ec;
    json::value value = json::parse(text, ec);
    return ec ? json::value(text) : value;  // the store keeps only JSON; text if a row was edited by hand
}

}  // namespace

Result<std::shared_ptr<PluginStorageService>> PluginStorageService::open(const db::StorageLocation& location) {
    auto store = store::PluginDataStore::open(location);
    if (!store) return store.error();
    return std::make_shared<PluginStorageService>(std::move(store.value()));
}

PluginStorageService::PluginStorageService(std::shared_ptr<store::PluginDataStore> store) : store_(std::move(store)) {}

Result<std::string> PluginStorageService::handle(const plugin::StorageOrigin& origin, std::string_view operation,
                                                 std::string_view request_json) {
    const store::DataOwner owner{std::string(origin.plugin), std::string(origin.user)};
    const store::PluginDataLimits& limits = store_->limits();
    auto parsed = parse_request(request_json, "the storage request");
    if (!parsed) return parsed.error();
    if (!parsed->is_object()) return invalid("the storage request is not an object");
    const json::object& request = parsed->get_object();
    const std::string where(operation);
    auto collection = text_field(request, "collection", where, operation != "batch");
    if (!collection) return collection.error();

    if (operation == "get") {
        auto key = text_field(request, "key", where, true);
        if (!key) return key.error();
        auto found = store_->get(owner, *collection, *key);
        if (!found) return found.error();
        if (!found->has_value()) return json::serialize(json::object{{"found", false}});
        const store::StoredRecord& record = **found;
        return json::serialize(json::object{{"found", true},
                                            {"key", record.key},
                                            {"value", stored_json(record.value_json)},
                                            {"version", record.version}});
    }
    if (operation == "list") {
        auto prefix = text_field(request, "prefix", where, false);
        if (!prefix) return prefix.error();
        auto cursor = text_field(request, "cursor", where, false);
        if (!cursor) return cursor.error();
        const json::value* limit = request.if_contains("limit");
        if (!limit || !limit->is_number()) return invalid("the list request has no integer \"limit\"");
        std::error_code ec;
        const auto count = limit->to_number<std::int64_t>(ec);
        if (ec) return invalid("the list limit is not an integer");
        auto page = store_->list(owner, *collection, *prefix, *cursor, count);
        if (!page) return page.error();
        json::array records;
        for (const store::StoredRecord& record : page->records)
            records.push_back(json::object{
                {"key", record.key}, {"value", stored_json(record.value_json)}, {"version", record.version}});
        json::object answer{{"records", std::move(records)}, {"next_cursor", nullptr}};
        if (page->next_cursor) answer["next_cursor"] = *page->next_cursor;
        return json::serialize(answer);
    }
    if (operation == "next_id") {
        auto id = store_->next_id(owner, *collection);
        if (!id) return id.error();
        return json::serialize(json::object{{"id", *id}});
    }
    if (operation == "put" || operation == "remove") {
        json::object op = request;
        op["op"] = operation;
        if (operation == "put") {
            auto text = text_field(request, "value", where, true);
            if (!text) return text.error();
            // Bounded before parsing: a value over the limit is refused whatever it holds.
            if (text->size() > limits.max_value_bytes)
                return too_large("value", limits.max_value_bytes, text->size(), "the value",
                                 "store less, or split it over several records");
            auto value = parse_request(*text, "the value");
            if (!value) return value.error();
            op["value"] = std::move(*value);
        }
        auto write = batch_operation(op, 0, limits.max_value_bytes);
        if (!write) return write.error();
        auto outcomes = store_->write(owner, {*write});
        if (!outcomes) {
            Error error = outcomes.error();
            error.details.erase("index");  // not a batch
            error.details.erase("op");
            return error;
        }
        return json::serialize(write_answer(*write, outcomes->front()));
    }
    if (operation == "batch") {
        auto text = text_field(request, "request", where, true);
        if (!text) return text.error();
        if (text->size() > SKILLHOST_STORAGE_MAX_BATCH_BYTES)
            return too_large("batch_bytes", SKILLHOST_STORAGE_MAX_BATCH_BYTES, text->size(), "the batch request",
                             "split it");
        auto batch = parse_request(*text, "the batch request");
        if (!batch) return batch.error();
        const json::value* operations = batch->is_object() ? batch->get_object().if_contains("operations") : nullptr;
        if (!operations || !operations->is_array())
            return invalid("the batch request has no \"operations\" array: {\"operations\":[{\"op\":\"put\",...}]}");
        // Counted before each operation is read, so a huge array costs nothing more (the store counts again).
        if (const std::size_t count = operations->get_array().size(); count > limits.max_batch_operations) {
            Error error{errors::kStorageTooLarge, "the batch has " + std::to_string(count) +
                                                      " operations, over the limit of " +
                                                      std::to_string(limits.max_batch_operations) + "; split it"};
            error.details["limit"] = "batch_operations";
            error.details["max"] = limits.max_batch_operations;
            error.details["actual"] = count;
            return error;
        }
        std::vector<store::RecordWrite> writes;
        for (const json::value& entry : operations->get_array()) {
            auto write = batch_operation(entry, writes.size(), limits.max_value_bytes);
            if (!write) {
                Error error = write.error();
                error.details["index"] = writes.size();
                return error;
            }
            writes.push_back(std::move(*write));
        }
        auto outcomes = store_->write(owner, writes);
        if (!outcomes) return outcomes.error();
        json::array results;
        for (std::size_t i = 0; i < writes.size(); ++i) results.push_back(write_answer(writes[i], (*outcomes)[i]));
        return json::serialize(json::object{{"results", std::move(results)}});
    }
    return invalid("unknown storage operation '" + where + "'");
}

}  // namespace skillhost::app
