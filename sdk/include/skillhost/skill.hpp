// skillhost/skill.hpp — write a skill as an ordinary C++ function (header-only, standard library only).
//
//   #include <skillhost/skill.hpp>
//
//   static skillhost::Json greet(const skillhost::Call& call, const skillhost::Json& args) {
//       if (args["name"].as_string().empty())
//           throw skillhost::SkillError("EMPTY_NAME", "name is empty; pass a non-empty name");
//       return skillhost::Json::object({{"greeting", "Hello, " + args["name"].as_string()}});
//   }
//
//   SKILLHOST_PLUGIN("greeter", "1.0.0", SKILLHOST_SKILL("greet", greet))
//
// Every exception thrown by a skill is caught at the ABI boundary: skillhost::SkillError becomes a
// structured error with its code; skillhost::JsonError (a wrong argument type) becomes INVALID_ARGS;
// any other std::exception becomes PLUGIN_EXCEPTION with its what() text; anything else becomes
// PLUGIN_EXCEPTION too. Nothing escapes into the host.
#pragma once

#include <skillhost/json.hpp>
#include <skillhost/skill_abi.h>
#include <skillhost/skill_prompts.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace skillhost {

inline skillhost_string_view to_view(std::string_view s) {
    return {s.data(), s.size()};
}
inline std::string_view from_view(skillhost_string_view s) {
    return s.data ? std::string_view(s.data, s.size) : std::string_view();
}

// A failure the skill reports on purpose: `code` is matched against the manifest's error hints.
class SkillError : public std::runtime_error {
public:
    SkillError(std::string code, const std::string& message, Json details = Json::object())
        : std::runtime_error(message), code_(std::move(code)), details_(std::move(details)) {}
    const std::string& code() const { return code_; }
    const Json& details() const { return details_; }

private:
    std::string code_;
    Json details_;
};

enum class LogLevel { debug = SKILLHOST_LOG_DEBUG, info, warn, error };

// One record of the plugin's storage ("skillhost.storage/1").
struct Record {
    std::string key;
    Json value;
    std::int64_t version = 0;
};

// The records the host keeps for this plugin and the call's user: the same on every instance of
// the host (see "skillhost.storage/1" in skill_abi.h for keys, versions and limits). Get one from
// Call::storage(); valid only while the skill function runs. Every failure throws SkillError with
// the host's code, message and details (STORAGE_CONFLICT, STORAGE_INVALID, STORAGE_TOO_LARGE,
// STORAGE_QUOTA_EXCEEDED, STORAGE_UNAVAILABLE, DATABASE_UNAVAILABLE, ...): let it propagate and the
// caller sees it, or catch a conflict and retry.
class Storage {
public:
    static constexpr std::int64_t any_version = SKILLHOST_STORAGE_ANY_VERSION;

    Storage(const skillhost_host_services* host, const skillhost_call_context* ctx, const skillhost_storage_v1* table)
        : host_(host), ctx_(ctx), table_(table) {}
    // False on a host without the extension: every other function then throws STORAGE_UNAVAILABLE.
    bool available() const { return table_ != nullptr; }

    std::optional<Record> get(std::string_view collection, std::string_view key) const;
    // Creates or replaces; expected_version 0 = create only, n = only at version n. The new version.
    std::int64_t put(std::string_view collection, std::string_view key, const Json& value,
                     std::int64_t expected_version = any_version) const;
    // False when there was no such record.
    bool remove(std::string_view collection, std::string_view key, std::int64_t expected_version = any_version) const;
    struct Page {
        std::vector<Record> records;
        std::string next_cursor;  // empty: nothing more
    };
    Page list(std::string_view collection, std::string_view prefix = {}, std::string_view cursor = {},
              std::uint32_t limit = 100) const;
    std::int64_t next_id(std::string_view collection) const;
    // `operations`: the batch's array ({"op":"put",...}, see skill_abi.h); all or nothing. The results array.
    Json batch(const Json& operations) const;

private:
    // Runs one ABI function with a capturing writer; the answer, or throws the host's error.
    template <typename Invoke>
    Json ask(Invoke&& invoke) const;

    const skillhost_host_services* host_;
    const skillhost_call_context* ctx_;
    const skillhost_storage_v1* table_;
};

// The view a skill gets of its call: who, where, until when, and the host's services.
// Valid only while the skill function runs.
class Call {
public:
    Call(const skillhost_host_services* host, const skillhost_call_context* ctx) : host_(host), ctx_(ctx) {}

    std::string_view skill_id() const { return from_view(ctx_->skill_id); }
    std::string_view call_id() const { return from_view(ctx_->call_id); }
    std::string_view user_id() const { return from_view(ctx_->user_id); }
    std::string_view cognitive_mode() const { return from_view(ctx_->cognitive_mode); }
    // This plugin's private directory for this user (exists; created by the host).
    std::string_view data_dir() const { return from_view(ctx_->data_dir); }
    // The user's workspace root, absolute; empty when the user has none.
    std::string_view workspace_root() const { return from_view(ctx_->workspace_root); }
    // Deadline, if the host set one.
    std::optional<std::chrono::system_clock::time_point> deadline() const {
        if (ctx_->deadline_unix_ms <= 0) return std::nullopt;
        return std::chrono::system_clock::time_point(std::chrono::milliseconds(ctx_->deadline_unix_ms));
    }
    // True when the host asks the call to stop; long loops should check it and throw Cancelled.
    bool cancelled() const {
        return host_ && host_->is_cancelled && host_->is_cancelled(host_->host_context, ctx_) != 0;
    }
    void progress(double done, double total, std::string_view message = {}) const {
        if (host_ && host_->report_progress)
            host_->report_progress(host_->host_context, ctx_, done, total, to_view(message));
    }
    // A line in the host log that is also this call's (shown to an MCP client for the call), from
    // any thread: "skillhost.call_log/1", or the 1.0 log() (the call's only on its own thread) on
    // a host without it.
    void log(LogLevel level, std::string_view message) const {
        const auto level_value = static_cast<skillhost_log_level>(level);
        if (const auto* call_log = static_cast<const skillhost_call_log_v1*>(extension(SKILLHOST_EXT_CALL_LOG));
            call_log && call_log->log)
            return call_log->log(host_->host_context, ctx_, level_value, to_view(message));
        if (host_ && host_->log) host_->log(host_->host_context, level_value, to_view(message));
    }
    // Asks the host's model router for a completion by role. Returns the `content` text, or
    // throws SkillError (code LLM_UNAVAILABLE or the host's error code) when no model answers.
    // Uses the "skillhost.llm/1" extension on 1.1 hosts and the 1.0 member on older ones.
    std::string complete(std::string_view role, const Json& request) const;

    // Whether the call's rules allow `operation` on `path` (relative to workspace_root() or
    // absolute), through the "skillhost.path_check/1" extension. Ask before touching any path the
    // caller did not pass as an argument (directory entries, link targets); skip denied ones and
    // report how many were withheld. True on a host without the extension: it has no per-path rules.
    bool path_allowed(std::string_view path, skillhost_path_operation operation) const {
        const auto* check = static_cast<const skillhost_path_check_v1*>(extension(SKILLHOST_EXT_PATH_CHECK));
        if (!check || !check->is_allowed) return true;
        return check->is_allowed(host_->host_context, ctx_, to_view(path), operation) == 1;
    }

    // Adds a content item ("skillhost.content/1") shown beside the structured result: see the item
    // shapes in skill_abi.h, or use the add_* helpers below. Returns false on a host without the
    // extension (the item is dropped); throws SkillError (CONTENT_INVALID, CONTENT_TOO_LARGE) when the
    // host refuses the item.
    bool add_content(const Json& item) const;
    bool add_text(std::string_view text) const { return add_content(Json::object({{"type", "text"}, {"text", text}})); }
    // `base64` is the encoded bytes (see skillhost::base64()).
    bool add_image(std::string_view base64, std::string_view mime_type) const {
        return add_content(Json::object({{"type", "image"}, {"data", base64}, {"mimeType", mime_type}}));
    }
    bool add_audio(std::string_view base64, std::string_view mime_type) const {
        return add_content(Json::object({{"type", "audio"}, {"data", base64}, {"mimeType", mime_type}}));
    }
    bool add_resource_link(std::string_view uri, std::string_view name, std::string_view mime_type = {}) const {
        Json item = Json::object({{"type", "resource_link"}, {"uri", uri}, {"name", name}});
        if (!mime_type.empty()) item["mimeType"] = mime_type;
        return add_content(item);
    }
    bool add_resource_text(std::string_view uri, std::string_view text, std::string_view mime_type) const {
        return add_content(
            Json::object({{"type", "resource"},
                          {"resource", Json::object({{"uri", uri}, {"mimeType", mime_type}, {"text", text}})}}));
    }

    // What the user answered to elicit(): action is "accept" (content holds the form's fields),
    // "decline" or "cancel".
    struct Elicitation {
        std::string action;
        Json content = Json::object();
        bool accepted() const { return action == "accept"; }
    };
    // Asks the user to fill in a form ("skillhost.elicit/1"; `requested_schema` is a flat object of
    // string, number, integer and boolean fields). Blocks until they answer. Returns nullopt when
    // nobody can be asked (an operator run, or the host lacks the extension); throws SkillError for
    // anything else (ELICITATION_INVALID, ELICITATION_FAILED, CANCELLED, and ELICITATION_PENDING when
    // the question was queued: let it propagate, the call runs again once the user answers).
    std::optional<Elicitation> elicit(std::string_view message, const Json& requested_schema) const;

    // The host's table for extension `id` (e.g. SKILLHOST_EXT_LLM), or nullptr when the host does
    // not offer it (unknown id, or a 1.0 host without extensions).
    // The key that stays the same when this call is retried for one intent ("skillhost.idempotency/1"):
    // a skill with side effects records the keys it acted on and answers a known key with what it
    // did then. Empty on a host without the extension, which never retries a call. Compare it with
    // call_id(): equal means a one-off direct call that will not be retried.
    std::string idempotency_key() const {
        const auto* idem = static_cast<const skillhost_idempotency_v1*>(extension(SKILLHOST_EXT_IDEMPOTENCY));
        if (!idem || !idem->key) return {};
        return std::string(from_view(idem->key(host_->host_context, ctx_)));
    }

    // The plugin's records for this call's user ("skillhost.storage/1").
    Storage storage() const {
        return Storage(host_, ctx_, static_cast<const skillhost_storage_v1*>(extension(SKILLHOST_EXT_STORAGE)));
    }

    const void* extension(const char* id) const {
        if (!host_ || !SKILLHOST_HAS_MEMBER(skillhost_host_services, host_, get_extension) || !host_->get_extension)
            return nullptr;
        return host_->get_extension(host_->host_context, id);
    }

    const skillhost_call_context& raw_context() const { return *ctx_; }

private:
    const skillhost_host_services* host_;
    const skillhost_call_context* ctx_;
};

// Thrown by a skill that stops because Call::cancelled() returned true.
struct Cancelled {};

using SkillFunction = Json (*)(const Call&, const Json&);

namespace detail {

// Captures what a writer receives, for the host services that answer through a writer.
struct CapturedResult {
    bool ok = false;
    bool written = false;
    std::string json, code, message, details;
    static void on_result(void* ctx, skillhost_string_view json) {
        auto* self = static_cast<CapturedResult*>(ctx);
        if (self->written) return;
        self->written = self->ok = true;
        self->json.assign(from_view(json));
    }
    static void on_error(void* ctx, skillhost_string_view code, skillhost_string_view message,
                         skillhost_string_view details) {
        auto* self = static_cast<CapturedResult*>(ctx);
        if (self->written) return;
        self->written = true;
        self->code.assign(from_view(code));
        self->message.assign(from_view(message));
        self->details.assign(from_view(details));
    }
    skillhost_result_writer writer() {
        return {this, &on_result, &on_error, static_cast<uint32_t>(sizeof(skillhost_result_writer))};
    }
};

inline const skillhost_host_services*& host_services() {
    // One per plugin library (hidden visibility keeps it private to this plugin).
    static const skillhost_host_services* services = nullptr;
    return services;
}

inline void write_error(const skillhost_result_writer* w, std::string_view code, std::string_view message,
                        const Json& details) {
    // The ABI wants details as a JSON object (or nothing); wrap anything else instead of sending
    // the host something it has to reject.
    std::string d;
    if (details.is_object())
        d = details.dump();
    else if (!details.is_null())
        d = Json::object({{"value", details}}).dump();
    w->write_error(w->writer_context, to_view(code), to_view(message), to_view(d));
}

// Runs `answer` (which returns the Json to write) and maps every exception to a structured error,
// so that nothing escapes across the C ABI.
template <typename Answer>
skillhost_status guarded(const skillhost_result_writer* writer, Answer&& answer) noexcept {
    try {
        Json result = answer();
        std::string text = result.dump();
        writer->write_result(writer->writer_context, to_view(text));
        return SKILLHOST_STATUS_OK;
    } catch (const SkillError& e) {
        write_error(writer, e.code(), e.what(), e.details());
        return SKILLHOST_STATUS_ERROR;
    } catch (const JsonError& e) {
        write_error(writer, "INVALID_ARGS", std::string("an argument has the wrong type: ") + e.what(), Json());
        return SKILLHOST_STATUS_INVALID_ARGS;
    } catch (const Cancelled&) {
        write_error(writer, "CANCELLED", "the call was cancelled before it finished", Json());
        return SKILLHOST_STATUS_CANCELLED;
    } catch (const std::exception& e) {
        write_error(writer, "PLUGIN_EXCEPTION", std::string("the skill threw an exception: ") + e.what(), Json());
        return SKILLHOST_STATUS_ERROR;
    } catch (...) {
        write_error(writer, "PLUGIN_EXCEPTION", "the skill threw an unknown exception", Json());
        return SKILLHOST_STATUS_ERROR;
    }
}

template <SkillFunction Fn>
skillhost_status invoke(void* plugin_state, const skillhost_call_context* ctx, skillhost_string_view args_json,
                        const skillhost_result_writer* writer) noexcept {
    Json args;
    try {
        args = Json::parse(from_view(args_json));
    } catch (const JsonError& e) {
        write_error(writer, "INVALID_ARGS", std::string("arguments are not valid JSON: ") + e.what(), Json());
        return SKILLHOST_STATUS_INVALID_ARGS;
    } catch (...) {
        write_error(writer, "PLUGIN_EXCEPTION", "the arguments could not be read", Json());
        return SKILLHOST_STATUS_ERROR;
    }
    return guarded(writer,
                   [&] { return Fn(Call(static_cast<const skillhost_host_services*>(plugin_state), ctx), args); });
}

// Optional per-plugin hooks an author can register with SKILLHOST_PLUGIN_HOOKS.
struct Hooks {
    void (*on_init)(const skillhost_host_services*) = nullptr;  // may throw SkillError to refuse loading
    void (*on_shutdown)() = nullptr;
};
inline Hooks& hooks() {
    static Hooks h;
    return h;
}

// The plugin's extension lookup, registered with SKILLHOST_PLUGIN_EXTENSIONS (none by default).
using ExtensionLookup = const void* (*)(const char* id);
inline ExtensionLookup& extension_lookup() {
    static ExtensionLookup lookup = nullptr;
    return lookup;
}
inline const void* get_extension(void*, const char* id) noexcept {
    try {
        return (extension_lookup() && id) ? extension_lookup()(id) : nullptr;
    } catch (...) {
        return nullptr;
    }
}

inline skillhost_status init(const skillhost_host_services* host, void** state,
                             const skillhost_result_writer* error_writer) noexcept {
    try {
        host_services() = host;
        *state = const_cast<skillhost_host_services*>(host);
        if (hooks().on_init) hooks().on_init(host);
        return SKILLHOST_STATUS_OK;
    } catch (const SkillError& e) {
        write_error(error_writer, e.code(), e.what(), e.details());
    } catch (const std::exception& e) {
        write_error(error_writer, "PLUGIN_INIT_FAILED", e.what(), Json());
    } catch (...) {
        write_error(error_writer, "PLUGIN_INIT_FAILED", "unknown exception during init", Json());
    }
    // A refused init gets no shutdown() (ABI rule), so forget the host table now: it is not ours
    // to use any more.
    host_services() = nullptr;
    *state = nullptr;
    return SKILLHOST_STATUS_ERROR;
}

inline void shutdown(void*) noexcept {
    try {
        if (hooks().on_shutdown && host_services()) hooks().on_shutdown();
    } catch (...) {}
    host_services() = nullptr;
}

}  // namespace detail

// Resources (the "skillhost.resources/1" extension), written as ordinary C++ functions:
//   Json list(const Call&)                         -> {"resources":[{"uri","name",...}]}
//   Json templates(const Call&)                    -> {"resourceTemplates":[{"uriTemplate","name",...}]}
//   Json read(const Call&, std::string_view uri)   -> {"contents":[{"uri","mimeType","text"|"blob"}]}
// Throw SkillError("RESOURCE_NOT_FOUND", ...) from read() for a URI the plugin does not know.
// Return the table from the plugin's extension lookup (SKILLHOST_PLUGIN_EXTENSIONS):
//   static const auto* resources = skillhost::resources_extension<list, templates, read>("my_skill", "notes://");
//   ... if (std::string_view(id) == SKILLHOST_EXT_RESOURCES) return resources;
// Pass nullptr as List or Templates for a plugin without them.
using ResourceListFunction = Json (*)(const Call&);
using ResourceReadFunction = Json (*)(const Call&, std::string_view uri);

namespace detail {

template <ResourceListFunction Fn>
skillhost_status list_resources(void* plugin_state, const skillhost_call_context* ctx,
                                const skillhost_result_writer* writer) noexcept {
    return guarded(writer, [&] { return Fn(Call(static_cast<const skillhost_host_services*>(plugin_state), ctx)); });
}

// Fn is a ResourceListFunction or nullptr. Told apart by type, not by comparing the pointer with
// nullptr: GCC does not treat that comparison as a constant expression under -fsanitize=undefined.
template <auto Fn>
constexpr auto list_entry() {
    using Entry = skillhost_status (*)(void*, const skillhost_call_context*, const skillhost_result_writer*);
    if constexpr (std::is_same_v<decltype(Fn), std::nullptr_t>)
        return Entry{nullptr};
    else
        return Entry{&list_resources<Fn>};
}

template <ResourceReadFunction Fn>
skillhost_status read_resource(void* plugin_state, const skillhost_call_context* ctx, skillhost_string_view uri,
                               const skillhost_result_writer* writer) noexcept {
    return guarded(writer, [&] {
        return Fn(Call(static_cast<const skillhost_host_services*>(plugin_state), ctx), from_view(uri));
    });
}

}  // namespace detail

// The extension table; `governing_skill` and `uri_prefix` must be string literals (static lifetime).
// The first call fixes them: call it once per plugin.
template <auto List, auto Templates, ResourceReadFunction Read>
const skillhost_resources_v1* resources_extension(const char* governing_skill, const char* uri_prefix) {
    static const skillhost_resources_v1 table{governing_skill, uri_prefix, detail::list_entry<List>(),
                                              detail::list_entry<Templates>(), &detail::read_resource<Read>};
    return &table;
}

// Prompts (the "skillhost.prompts/1" extension), written as ordinary C++ functions:
//   Json list(const Call&)                              -> {"prompts":[{"name","description","arguments":[...]}]}
//   Json get(const Call&, std::string_view name, const Json& arguments)
//                                                       -> {"messages":[{"role":"user","content":{...}}]}
//   Json complete(const Call&, const Json& request)     -> {"values":[...],"total"?,"hasMore"?}
// Throw SkillError("PROMPT_NOT_FOUND", ...) from get() for a name the plugin does not know.
//   static const auto* prompts = skillhost::prompts_extension<list, get, complete>("my_skill");
//   ... if (std::string_view(id) == SKILLHOST_EXT_PROMPTS) return prompts;
// Pass nullptr as Complete (or as List and Get) for a plugin without it.
using PromptListFunction = Json (*)(const Call&);
using PromptGetFunction = Json (*)(const Call&, std::string_view name, const Json& arguments);
using CompletionFunction = Json (*)(const Call&, const Json& request);

namespace detail {

// Parses `json` (from the host) and answers `answer(parsed)`, or INVALID_ARGS when it is not JSON.
template <typename Answer>
skillhost_status with_parsed(skillhost_string_view json, const skillhost_result_writer* writer,
                             Answer&& answer) noexcept {
    Json parsed;
    try {
        parsed = Json::parse(from_view(json));
    } catch (...) {
        write_error(writer, "INVALID_ARGS", "the host passed text that is not JSON", Json());
        return SKILLHOST_STATUS_INVALID_ARGS;
    }
    return guarded(writer, [&] { return answer(parsed); });
}

template <PromptGetFunction Fn>
skillhost_status get_prompt(void* plugin_state, const skillhost_call_context* ctx, skillhost_string_view name,
                            skillhost_string_view arguments_json, const skillhost_result_writer* writer) noexcept {
    return with_parsed(arguments_json, writer, [&](const Json& arguments) {
        return Fn(Call(static_cast<const skillhost_host_services*>(plugin_state), ctx), from_view(name), arguments);
    });
}

template <CompletionFunction Fn>
skillhost_status complete_argument(void* plugin_state, const skillhost_call_context* ctx,
                                   skillhost_string_view request_json, const skillhost_result_writer* writer) noexcept {
    return with_parsed(request_json, writer, [&](const Json& request) {
        return Fn(Call(static_cast<const skillhost_host_services*>(plugin_state), ctx), request);
    });
}

// Each of these is the function's entry, or nullptr when Fn is nullptr (told apart by type).
template <auto Fn>
constexpr auto get_entry() {
    using Entry = decltype(skillhost_prompts_v1::get);
    if constexpr (std::is_same_v<decltype(Fn), std::nullptr_t>)
        return Entry{nullptr};
    else
        return Entry{&get_prompt<Fn>};
}

template <auto Fn>
constexpr auto complete_entry() {
    using Entry = decltype(skillhost_prompts_v1::complete);
    if constexpr (std::is_same_v<decltype(Fn), std::nullptr_t>)
        return Entry{nullptr};
    else
        return Entry{&complete_argument<Fn>};
}

}  // namespace detail

// The extension table; `governing_skill` must be a string literal (static lifetime). The first call
// fixes it: call it once per plugin.
template <auto List, auto Get, auto Complete>
const skillhost_prompts_v1* prompts_extension(const char* governing_skill) {
    static const skillhost_prompts_v1 table{governing_skill, detail::list_entry<List>(), detail::get_entry<Get>(),
                                            detail::complete_entry<Complete>()};
    return &table;
}

inline std::string Call::complete(std::string_view role, const Json& request) const {
    using CompleteFn = decltype(skillhost_llm_v1::complete);
    CompleteFn complete_fn = host_ ? host_->complete : nullptr;
    if (const auto* llm = static_cast<const skillhost_llm_v1*>(extension(SKILLHOST_EXT_LLM)); llm && llm->complete)
        complete_fn = llm->complete;
    if (!complete_fn) throw SkillError("LLM_UNAVAILABLE", "this host offers no model service");
    detail::CapturedResult captured;
    skillhost_result_writer w = captured.writer();
    std::string body = request.dump();
    skillhost_status st = complete_fn(host_->host_context, ctx_, to_view(role), to_view(body), &w);
    if (st != SKILLHOST_STATUS_OK || !captured.ok)
        throw SkillError(captured.code.empty() ? "LLM_UNAVAILABLE" : captured.code,
                         captured.message.empty() ? "no model answered the completion request" : captured.message);
    // A malformed answer is the host's fault, not the caller's: it must not surface as the
    // INVALID_ARGS that a JsonError escaping the skill would become.
    try {
        Json answer = Json::parse(captured.json);
        const Json* content = answer.find("content");
        if (content && content->is_string()) return content->as_string();
    } catch (const JsonError&) {}
    throw SkillError("LLM_INVALID_RESPONSE", "the host's completion answer has no text content; retry the call",
                     Json::object({{"response", captured.json}}));
}

inline bool Call::add_content(const Json& item) const {
    const auto* content = static_cast<const skillhost_content_v1*>(extension(SKILLHOST_EXT_CONTENT));
    if (!content || !content->add) return false;
    detail::CapturedResult refused;
    skillhost_result_writer w = refused.writer();
    const std::string body = item.dump();
    if (content->add(host_->host_context, ctx_, to_view(body), &w) == SKILLHOST_STATUS_OK) return true;
    throw SkillError(refused.code.empty() ? "CONTENT_INVALID" : refused.code,
                     refused.message.empty() ? "the host refused the content item" : refused.message);
}

inline std::optional<Call::Elicitation> Call::elicit(std::string_view message, const Json& requested_schema) const {
    const auto* ext = static_cast<const skillhost_elicit_v1*>(extension(SKILLHOST_EXT_ELICIT));
    if (!ext || !ext->elicit) return std::nullopt;
    detail::CapturedResult captured;
    skillhost_result_writer w = captured.writer();
    const std::string body = Json::object({{"message", message}, {"requestedSchema", requested_schema}}).dump();
    const skillhost_status st = ext->elicit(host_->host_context, ctx_, to_view(body), &w);
    if (st == SKILLHOST_STATUS_UNAVAILABLE) return std::nullopt;
    if (st != SKILLHOST_STATUS_OK || !captured.ok)
        throw SkillError(captured.code.empty() ? "ELICITATION_FAILED" : captured.code,
                         captured.message.empty() ? "the user could not be asked" : captured.message);
    try {
        Json answer = Json::parse(captured.json);
        Elicitation out;
        if (const Json* action = answer.find("action"); action && action->is_string()) out.action = action->as_string();
        if (const Json* content = answer.find("content"); content && content->is_object()) out.content = *content;
        return out;
    } catch (const JsonError&) {
        throw SkillError("ELICITATION_FAILED", "the host's elicitation answer is not JSON; retry the call");
    }
}

template <typename Invoke>
Json Storage::ask(Invoke&& invoke) const {
    if (!table_) throw SkillError("STORAGE_UNAVAILABLE", "this host keeps no plugin storage (skillhost.storage/1)");
    detail::CapturedResult captured;
    skillhost_result_writer w = captured.writer();
    const skillhost_status st = invoke(host_->host_context, &w);
    if (st != SKILLHOST_STATUS_OK || !captured.ok) {
        Json details = Json::object();
        try {
            if (!captured.details.empty()) details = Json::parse(captured.details);
        } catch (const JsonError&) {}
        throw SkillError(captured.code.empty() ? "STORAGE_UNAVAILABLE" : captured.code,
                         captured.message.empty() ? "the host's storage did not answer" : captured.message,
                         std::move(details));
    }
    try {
        return Json::parse(captured.json);
    } catch (const JsonError&) {
        throw SkillError("STORAGE_UNAVAILABLE", "the host's storage answer is not JSON; retry the call");
    }
}

inline std::optional<Record> Storage::get(std::string_view collection, std::string_view key) const {
    Json answer = ask([&](void* host, const skillhost_result_writer* w) {
        return table_->get(host, ctx_, to_view(collection), to_view(key), w);
    });
    if (!answer.bool_or("found", false)) return std::nullopt;
    return Record{std::string(key), answer["value"], answer.int_or("version", 0)};
}

inline std::int64_t Storage::put(std::string_view collection, std::string_view key, const Json& value,
                                 std::int64_t expected_version) const {
    const std::string text = value.dump();
    Json answer = ask([&](void* host, const skillhost_result_writer* w) {
        return table_->put(host, ctx_, to_view(collection), to_view(key), to_view(text), expected_version, w);
    });
    return answer.int_or("version", 0);
}

inline bool Storage::remove(std::string_view collection, std::string_view key, std::int64_t expected_version) const {
    Json answer = ask([&](void* host, const skillhost_result_writer* w) {
        return table_->remove(host, ctx_, to_view(collection), to_view(key), expected_version, w);
    });
    return answer.bool_or("removed", false);
}

inline Storage::Page Storage::list(std::string_view collection, std::string_view prefix, std::string_view cursor,
                                   std::uint32_t limit) const {
    Json answer = ask([&](void* host, const skillhost_result_writer* w) {
        return table_->list(host, ctx_, to_view(collection), to_view(prefix), to_view(cursor), limit, w);
    });
    Page page;
    if (const Json* records = answer.find("records"); records && records->is_array())
        for (const Json& record : records->as_array())
            page.records.push_back(Record{record.string_or("key", ""), record["value"], record.int_or("version", 0)});
    if (const Json* next = answer.find("next_cursor"); next && next->is_string()) page.next_cursor = next->as_string();
    return page;
}

inline std::int64_t Storage::next_id(std::string_view collection) const {
    Json answer = ask([&](void* host, const skillhost_result_writer* w) {
        return table_->next_id(host, ctx_, to_view(collection), w);
    });
    return answer.int_or("id", 0);
}

inline Json Storage::batch(const Json& operations) const {
    const std::string body = Json::object({{"operations", operations}}).dump();
    Json answer =
        ask([&](void* host, const skillhost_result_writer* w) { return table_->batch(host, ctx_, to_view(body), w); });
    const Json* results = answer.find("results");
    return results ? *results : Json::array();
}

// Standard base64 (RFC 4648, padded) of `bytes`, for image, audio and blob content.
inline std::string base64(std::string_view bytes) {
    const char* const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8) | static_cast<unsigned char>(bytes[i + 2]);
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += alphabet[(n >> 6) & 63];
        out += alphabet[n & 63];
    }
    if (i < bytes.size()) {
        unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

}  // namespace skillhost

// One skill: its manifest id and the C++ function implementing it.
#define SKILLHOST_SKILL(id, fn)              \
    skillhost_skill {                        \
        id, &::skillhost::detail::invoke<fn> \
    }

// Defines the plugin's one exported entry point. Use once per library.
#define SKILLHOST_PLUGIN(plugin_name, plugin_version, ...)                                               \
    extern "C" SKILLHOST_EXPORT const skillhost_plugin* skillhost_plugin_entry(void) {                   \
        static const skillhost_skill skills[] = {__VA_ARGS__};                                           \
        static const skillhost_plugin plugin = {SKILLHOST_ABI_VERSION_INIT,                              \
                                                static_cast<uint32_t>(sizeof(skillhost_plugin)),         \
                                                plugin_name,                                             \
                                                plugin_version,                                          \
                                                static_cast<uint32_t>(sizeof skills / sizeof skills[0]), \
                                                skills,                                                  \
                                                &::skillhost::detail::init,                              \
                                                &::skillhost::detail::shutdown,                          \
                                                static_cast<uint32_t>(sizeof(skillhost_skill)),          \
                                                &::skillhost::detail::get_extension};                    \
        return &plugin;                                                                                  \
    }

// Offers plugin extensions (ABI 1.1): lookup_fn is const void*(const char* id), returning the
// table for ids the plugin implements and nullptr for every other id. Use once per library:
//   static const skillhost_plugin_info_v1 info = {"Converts units", nullptr};
//   static const void* my_extensions(const char* id) {
//       return std::string_view(id) == SKILLHOST_EXT_PLUGIN_INFO ? &info : nullptr;
//   }
//   SKILLHOST_PLUGIN_EXTENSIONS(my_extensions)
#define SKILLHOST_PLUGIN_EXTENSIONS(lookup_fn)               \
    namespace {                                              \
    const bool skillhost_extensions_registered_ = [] {       \
        ::skillhost::detail::extension_lookup() = lookup_fn; \
        return true;                                         \
    }();                                                     \
    }

// Registers optional init/shutdown hooks: SKILLHOST_PLUGIN_HOOKS(my_init, my_shutdown)
// where my_init is void(const skillhost_host_services*) and my_shutdown is void().
#define SKILLHOST_PLUGIN_HOOKS(init_fn, shutdown_fn)                                     \
    namespace {                                                                          \
    const bool skillhost_hooks_registered_ = [] {                                        \
        ::skillhost::detail::hooks() = ::skillhost::detail::Hooks{init_fn, shutdown_fn}; \
        return true;                                                                     \
    }();                                                                                 \
    }
