// Every function here is called by plugin code through a C function pointer: none may throw, and
// each must survive whatever a buggy plugin passes (null pointers, null data with a size).
#include "plugin/host_services.hpp"
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "db/error_codes.hpp"
#include "store/error_codes.hpp"

#include "plugin/abi_strings.hpp"
#include "plugin/call_control.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>
#include <string>

namespace skillhost::plugin {
namespace {

PluginHostContext* context_of(void* host_context) {
    return static_cast<PluginHostContext*>(host_context);
}

CallControl* control_of(const skillhost_call_context* call) {
    return call ? static_cast<CallControl*>(call->host_call) : nullptr;
}

thread_local CallControl* thread_call = nullptr;

// The most log lines of one call a front end receives: a plugin logging in a loop must not flood
// the client (the host log still gets every line).
constexpr int kMaxForwardedLogLines = 100;

spdlog::level::level_enum to_spdlog(skillhost_log_level level) {
    switch (level) {
        case SKILLHOST_LOG_DEBUG: return spdlog::level::debug;
        case SKILLHOST_LOG_INFO: return spdlog::level::info;
        case SKILLHOST_LOG_WARN: return spdlog::level::warn;
        case SKILLHOST_LOG_ERROR: return spdlog::level::err;
        default: return spdlog::level::info;  // a level from a newer ABI minor
    }
}

void log_line(void* host_context, skillhost_log_level level, skillhost_string_view message) noexcept {
    try {
        const PluginHostContext* context = context_of(host_context);
        const std::string_view name = context ? std::string_view(context->plugin_name) : "?";
        spdlog::log(to_spdlog(level), "[plugin {}] {}", name, from_abi(message));
        if (CallControl* control = thread_call; control && control->services) {
            const int sent = control->forwarded_log_lines.fetch_add(1);
            if (sent < kMaxForwardedLogLines)
                control->services->log(level, from_abi(message));
            else if (sent == kMaxForwardedLogLines)
                control->services->log(SKILLHOST_LOG_WARN, "further log lines of this call are not forwarded (limit " +
                                                               std::to_string(kMaxForwardedLogLines) + ")");
        }
    } catch (...) {
        // Logging must never take the plugin's call down.
    }
}

void report_progress(void*, const skillhost_call_context* call, double progress, double total,
                     skillhost_string_view message) noexcept {
    CallControl* control = control_of(call);
    if (!control || !control->services) return;
    try {
        control->services->progress(progress, total, from_abi(message));
    } catch (const std::exception& e) {
        spdlog::warn("progress listener failed: {}", e.what());
    } catch (...) {
        spdlog::warn("progress listener failed with an unknown exception");
    }
}

int32_t is_cancelled(void*, const skillhost_call_context* call) noexcept {
    if (!call) return 0;
    if (const CallControl* control = control_of(call); control && control->cancelled.load()) return 1;
    // The deadline counts even when the executor has not yet noticed it passed.
    if (call->deadline_unix_ms > 0) {
        const auto now_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        if (now_ms >= call->deadline_unix_ms) return 1;
    }
    return 0;
}

void write_error(const skillhost_result_writer* writer, std::string_view code, std::string_view message,
                 std::string_view details_json) {
    if (writer && writer->write_error)
        writer->write_error(writer->writer_context, to_abi(code), to_abi(message), to_abi(details_json));
}

void write_error(const skillhost_result_writer* writer, const ErrorCode& code, std::string_view message,
                 std::string_view details_json) {
    write_error(writer, code.name, message, details_json);
}

}  // namespace

skillhost_status answer_through(const skillhost_result_writer* writer, const Result<std::string>& answer) {
    if (answer.ok()) {
        if (writer && writer->write_result) writer->write_result(writer->writer_context, to_abi(answer.value()));
        return SKILLHOST_STATUS_OK;
    }
    const Error& error = answer.error();
    write_error(writer, error.code, error.message, boost::json::serialize(error.details));
    if (error.is(errors::kLlmUnavailable) || error.is(errors::kElicitationUnavailable))
        return SKILLHOST_STATUS_UNAVAILABLE;
    if (error.is(errors::kStorageUnavailable) || error.is(errors::kDatabaseUnavailable))
        return SKILLHOST_STATUS_UNAVAILABLE;
    if (error.is(errors::kElicitationInvalid) || error.is(errors::kStorageInvalid) ||
        error.is(errors::kStorageTooLarge))
        return SKILLHOST_STATUS_INVALID_ARGS;
    // A question queued for later (exec/elicitation_pause.hpp): the skill must stop as if cancelled.
    if (error.is(errors::kCancelled) || error.is(errors::kElicitationPending)) return SKILLHOST_STATUS_CANCELLED;
    return SKILLHOST_STATUS_ERROR;
}

namespace {

skillhost_status complete(void* host_context, const skillhost_call_context* call, skillhost_string_view role,
                          skillhost_string_view request_json, const skillhost_result_writer* writer) noexcept {
    try {
        const PluginHostContext* context = context_of(host_context);
        const std::string role_text(from_abi(role));
        if (CallControl* control = control_of(call); control && control->services && control->services->samples()) {
            Result<std::string> answer =
                control->services->sample(role_text, from_abi(request_json), control->cancelled);
            return answer_through(writer, answer);
        }
        if (!context || !context->completions) {
            const std::string message = "no model is configured for role '" + role_text +
                                        "'; configure one in models.yaml or continue without a completion";
            write_error(writer, errors::kLlmUnavailable, message,
                        boost::json::serialize(boost::json::object{{"role", role_text}}));
            return SKILLHOST_STATUS_UNAVAILABLE;
        }
        CompletionOrigin origin;
        if (call) origin.user_id = from_abi(call->user_id);
        if (const CallControl* control = control_of(call); control && control->call)
            origin.run_id = control->call->run_id;
        return answer_through(writer, context->completions->complete(origin, role_text, from_abi(request_json)));
    } catch (const std::exception& e) {
        write_error(writer, errors::kLlmFailed, std::string("the completion request failed in the host: ") + e.what(),
                    "{}");
    } catch (...) {
        write_error(writer, errors::kLlmFailed, "the completion request failed in the host", "{}");
    }
    return SKILLHOST_STATUS_ERROR;
}

int32_t is_path_allowed(void*, const skillhost_call_context* call, skillhost_string_view path,
                        int32_t /*operation: every operation is judged by the same rules*/) noexcept {
    const CallControl* control = control_of(call);
    if (!control) return 0;
    if (path.size > 0 && path.data == nullptr) return 0;
    if (!control->path_allowed) return 1;
    try {
        return control->path_allowed(from_abi(path)) ? 1 : 0;
    } catch (...) {
        return 0;  // fail closed: a path the host cannot judge is withheld
    }
}

skillhost_status add_content(void*, const skillhost_call_context* call, skillhost_string_view item_json,
                             const skillhost_result_writer* error_writer) noexcept {
    CallControl* control = control_of(call);
    try {
        if (!control) {
            write_error(error_writer, errors::kContentUnavailable, "content can only be added during a call", "{}");
            return SKILLHOST_STATUS_UNAVAILABLE;
        }
        if (item_json.size > 0 && item_json.data == nullptr) {
            write_error(error_writer, errors::kContentInvalid, "the content item is a null pointer with a size", "{}");
            return SKILLHOST_STATUS_INVALID_ARGS;
        }
        const Status added = control->content.add(from_abi(item_json));
        if (added) return SKILLHOST_STATUS_OK;
        write_error(error_writer, added.error().code, added.error().message,
                    boost::json::serialize(added.error().details));
    } catch (const std::exception& e) {
        write_error(error_writer, errors::kContentInvalid, std::string("the host could not keep the item: ") + e.what(),
                    "{}");
    } catch (...) {
        write_error(error_writer, errors::kContentInvalid, "the host could not keep the item", "{}");
    }
    return SKILLHOST_STATUS_INVALID_ARGS;
}

skillhost_status elicit(void*, const skillhost_call_context* call, skillhost_string_view request_json,
                        const skillhost_result_writer* writer) noexcept {
    CallControl* control = control_of(call);
    try {
        static const std::atomic<bool> never_ended{false};
        if (!control || !control->services)
            return answer_through(writer, CallServices().elicit(from_abi(request_json), never_ended));
        return answer_through(writer, control->services->elicit(from_abi(request_json), control->cancelled));
    } catch (const std::exception& e) {
        write_error(writer, errors::kElicitationFailed, std::string("asking the user failed in the host: ") + e.what(),
                    "{}");
    } catch (...) {
        write_error(writer, errors::kElicitationFailed, "asking the user failed in the host", "{}");
    }
    return SKILLHOST_STATUS_ERROR;
}

skillhost_string_view idempotency_key(void*, const skillhost_call_context* call) noexcept {
    const CallControl* control = control_of(call);
    if (!control) return to_abi(std::string_view());
    // A call made without the executor (a test harness) has no key of its own: it is never retried.
    if (!control->call || control->call->idempotency_key.empty()) return call->call_id;
    return to_abi(control->call->idempotency_key);
}

// "skillhost.storage/1": every function becomes one operation of plugin/storage_service.hpp, answered
// by the runner's forwarder (CallControl::storage) or this host's storage, for the plugin this
// table belongs to and the call's user.
skillhost_status storage_request(void* host_context, const skillhost_call_context* call, std::string_view operation,
                                 boost::json::object request, const skillhost_result_writer* writer) noexcept {
    try {
        const PluginHostContext* context = context_of(host_context);
        const CallControl* control = control_of(call);
        if (!control || !context)
            return answer_through(writer, Error{errors::kStorageUnavailable,
                                                "plugin storage answers only during a call (pass the call's "
                                                "context), for that call's user"});
        const std::string body = boost::json::serialize(request);
        if (control->storage) return answer_through(writer, control->storage(operation, body));
        if (!context->storage)
            return answer_through(writer, Error{errors::kStorageUnavailable,
                                                "this host keeps no plugin storage; keep the data in the plugin's "
                                                "data directory instead"});
        const StorageOrigin origin{context->plugin_name, from_abi(call->user_id)};
        return answer_through(writer, context->storage->handle(origin, operation, body));
    } catch (const std::exception& e) {
        write_error(writer, errors::kStorageUnavailable, std::string("plugin storage failed in the host: ") + e.what(),
                    "{}");
    } catch (...) {
        write_error(writer, errors::kStorageUnavailable, "plugin storage failed in the host", "{}");
    }
    return SKILLHOST_STATUS_UNAVAILABLE;
}

// The strings of one storage request, as JSON strings named as the ABI names them.
struct StorageArguments {
    boost::json::object request;
    std::optional<Error> refused;  // a null pointer with a size

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
    try {
        StorageArguments arguments;
        build(arguments);
        if (arguments.refused) return answer_through(writer, *arguments.refused);
        return storage_request(host_context, call, operation, std::move(arguments.request), writer);
    } catch (...) {
        write_error(writer, errors::kStorageUnavailable, "plugin storage failed in the host", "{}");
        return SKILLHOST_STATUS_UNAVAILABLE;
    }
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

// The extension tables are immutable and shared by every plugin: host_context tells them apart.
const skillhost_llm_v1 llm_extension{&complete};
const skillhost_path_check_v1 path_check_extension{&is_path_allowed};
const skillhost_content_v1 content_extension{&add_content};
const skillhost_elicit_v1 elicit_extension{&elicit};
const skillhost_idempotency_v1 idempotency_extension{&idempotency_key};
const skillhost_storage_v1 storage_extension{&storage_get,  &storage_put,     &storage_remove,
                                             &storage_list, &storage_next_id, &storage_batch};

const void* get_extension(void*, const char* id) noexcept {
    if (id == nullptr) return nullptr;
    const std::string_view wanted(id);
    if (wanted == SKILLHOST_EXT_LLM) return &llm_extension;
    if (wanted == SKILLHOST_EXT_PATH_CHECK) return &path_check_extension;
    if (wanted == SKILLHOST_EXT_CONTENT) return &content_extension;
    if (wanted == SKILLHOST_EXT_ELICIT) return &elicit_extension;
    if (wanted == SKILLHOST_EXT_IDEMPOTENCY) return &idempotency_extension;
    if (wanted == SKILLHOST_EXT_STORAGE) return &storage_extension;
    return nullptr;
}

}  // namespace

skillhost_host_services make_host_services(PluginHostContext& context) {
    skillhost_host_services services{};
    services.struct_size = sizeof(skillhost_host_services);
    services.host_abi_version = SKILLHOST_ABI_VERSION_INIT;
    services.host_context = &context;
    services.log = &log_line;
    services.report_progress = &report_progress;
    services.is_cancelled = &is_cancelled;
    services.complete = &complete;
    services.get_extension = &get_extension;
    return services;
}

CallThreadScope::CallThreadScope(CallControl* control) : previous_(thread_call) {
    thread_call = control;
}

CallThreadScope::~CallThreadScope() {
    thread_call = previous_;
}

}  // namespace skillhost::plugin
