// "skillhost.storage/1": records the host keeps for the plugin, per user. Every table function
// becomes one operation of plugin/storage_service.hpp, answered by the host's storage for the
// plugin and the call's user. Answered by the host; the body is the operation and its JSON request.
#include "plugin/error_codes.hpp"
#include "plugin/extensions/host_extension.hpp"
#include "store/error_codes.hpp"

#include "plugin/abi_strings.hpp"
#include "plugin/runner_protocol.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <optional>

namespace skillhost::plugin {

extern const HostExtension storage_extension;

namespace {

Result<std::string> answer(const ExtensionScope& scope, std::string_view body) {
    wire::PayloadReader r(body);
    const std::string_view operation = r.text();
    const std::string_view request = r.text();
    if (!r.ok()) return Error{errors::kRunnerProtocolError, "the storage request is unreadable"};
    if (!scope.control)
        return Error{errors::kStorageUnavailable,
                     "plugin storage answers only during a call (pass the call's context), for that call's user"};
    if (!scope.plugin.storage)
        return Error{errors::kStorageUnavailable,
                     "this host keeps no plugin storage; keep the data in the plugin's data directory instead"};
    return scope.plugin.storage->handle(StorageOrigin{scope.plugin.plugin_name, scope.user_id}, operation, request);
}

// The strings of one storage request, as JSON strings named as the ABI names them.
struct StorageArguments {
    boost::json::object request;
    std::optional<Error> refused;  // a null pointer with a size, or too many bytes

    StorageArguments& text(std::string_view name, skillhost_string_view view) {
        if (refused) return *this;
        if (view.size > 0 && view.data == nullptr) {
            refused = Error{errors::kStorageInvalid, "the " + std::string(name) + " is a null pointer with a size"};
        } else if (view.size > SKILLHOST_STORAGE_MAX_BATCH_BYTES) {
            // No argument may be larger than a whole batch: refused before the host copies it.
            refused = Error{errors::kStorageTooLarge, "the " + std::string(name) + " has " + std::to_string(view.size) +
                                                          " bytes, over the limit of " +
                                                          std::to_string(SKILLHOST_STORAGE_MAX_BATCH_BYTES)};
            refused->details["limit"] = name == "request" ? "batch_bytes" : name == "value" ? "value" : "key";
            refused->details["max"] = SKILLHOST_STORAGE_MAX_BATCH_BYTES;
            refused->details["actual"] = view.size;
        } else {
            request[name] = boost::json::string(from_abi(view));
        }
        return *this;
    }
};

// Builds the request with `build` (a StorageArguments&), then asks for `operation`.
template <typename Build>
skillhost_status storage_call(void* host_context, const skillhost_call_context* call, std::string_view operation,
                              const skillhost_result_writer* writer, Build&& build) noexcept {
    return answer_through(writer,
                          ask_extension_with(storage_extension, host_context, call, [&]() -> Result<std::string> {
                              StorageArguments arguments;
                              build(arguments);
                              if (arguments.refused) return std::move(*arguments.refused);
                              wire::PayloadWriter w;
                              w.text(operation).text(boost::json::serialize(arguments.request));
                              return std::move(w.bytes());
                          }));
}

skillhost_status storage_get(void* host_context, const skillhost_call_context* call, skillhost_string_view collection,
                             skillhost_string_view key, const skillhost_result_writer* writer) noexcept {
    return storage_call(host_context, call, "get", writer,
                        [&](StorageArguments& a) { a.text("collection", collection).text("key", key); });
}

skillhost_status storage_put(void* host_context, const skillhost_call_context* call, skillhost_string_view collection,
                             skillhost_string_view key, skillhost_string_view value_json, int64_t expected_version,
                             const skillhost_result_writer* writer) noexcept {
    // The value travels as text: the storage checks its size before it parses it.
    return storage_call(host_context, call, "put", writer, [&](StorageArguments& a) {
        a.text("collection", collection).text("key", key).text("value", value_json);
        a.request["expected_version"] = expected_version;
    });
}

skillhost_status storage_remove(void* host_context, const skillhost_call_context* call,
                                skillhost_string_view collection, skillhost_string_view key, int64_t expected_version,
                                const skillhost_result_writer* writer) noexcept {
    return storage_call(host_context, call, "remove", writer, [&](StorageArguments& a) {
        a.text("collection", collection).text("key", key);
        a.request["expected_version"] = expected_version;
    });
}

skillhost_status storage_list(void* host_context, const skillhost_call_context* call, skillhost_string_view collection,
                              skillhost_string_view prefix, skillhost_string_view cursor, uint32_t limit,
                              const skillhost_result_writer* writer) noexcept {
    return storage_call(host_context, call, "list", writer, [&](StorageArguments& a) {
        a.text("collection", collection).text("prefix", prefix).text("cursor", cursor);
        a.request["limit"] = limit;
    });
}

skillhost_status storage_next_id(void* host_context, const skillhost_call_context* call,
                                 skillhost_string_view collection, const skillhost_result_writer* writer) noexcept {
    return storage_call(host_context, call, "next_id", writer,
                        [&](StorageArguments& a) { a.text("collection", collection); });
}

skillhost_status storage_batch(void* host_context, const skillhost_call_context* call,
                               skillhost_string_view request_json, const skillhost_result_writer* writer) noexcept {
    return storage_call(host_context, call, "batch", writer,
                        [&](StorageArguments& a) { a.text("request", request_json); });
}

const skillhost_storage_v1 table{&storage_get,  &storage_put,     &storage_remove,
                                 &storage_list, &storage_next_id, &storage_batch};

}  // namespace

extern const HostExtension storage_extension{
    .id = SKILLHOST_EXT_STORAGE,
    .table = &table,
    .answered_by_host = true,
    .blocks = true,  // a database round trip
    .unavailable = &errors::kStorageUnavailable,
    .failed = &errors::kStorageUnavailable,
    .failing = "plugin storage",
    .answer = &answer,
};

}  // namespace skillhost::plugin
