// One host extension of the skill ABI ("skillhost.storage/1", ...) as a module: the table a plugin
// receives from get_extension(), and how a request made through that table is answered. Every
// module lives in this folder, one file each, and is listed once in host_extension.cpp.
//
// Where a request is answered:
//  - by the host (`answered_by_host`): in-process, the module's answer() runs on the plugin's
//    thread. A plugin isolated in a runner has the same table; its request is encoded by the module
//    (the body is the module's own encoding of the table call's arguments), sent to the host with
//    the extension's id, and the host's runner connection hands the body to the same answer(),
//    for the host's record of the call. The runner knows no extension: it forwards any of them.
//  - where the plugin runs (content items, the idempotency key, call log lines): the module's table
//    answers from the call itself, in the host or in the runner, with no round trip.
//
// Thread and lifetime rules: the table functions run on any plugin thread, several at once, and
// never throw (a buggy plugin may pass null pointers or null data with a size); answer() runs on
// the plugin's thread in-process or on the host's reader or request pool for a runner, and the
// scope it receives lives until it returns.
#pragma once

#include "base/error.hpp"
#include "plugin/call_control.hpp"
#include "plugin/host_services.hpp"

#include <skillhost/skill_abi.h>

#include <span>
#include <string>
#include <string_view>

namespace skillhost::plugin {

// What an answer may use: the plugin asking (its name, the host's model router and storage), the
// call it asks in and whose call that is.
struct ExtensionScope {
    const PluginHostContext& plugin;
    bool in_call = false;            // false: asked outside any call (a plugin's own thread)
    CallControl* control = nullptr;  // the call's control; null outside a call or for a bare call
    std::string_view user_id;        // the call's user; empty outside a call
    std::string_view run_id;         // the operator run that made the call; empty otherwise
};

struct HostExtension {
    std::string_view id;  // as published in the SDK header, e.g. SKILLHOST_EXT_STORAGE
    const void* table;    // what get_extension(id) returns; immutable, shared by every plugin

    // Answered by the host (a runner forwards the request); false: where the plugin runs.
    bool answered_by_host = false;
    // The host answers a runner's request on its request pool (it may take seconds: a model, a
    // person, a database) rather than on the thread reading the runner's socket.
    bool blocks = false;
    // answered_by_host: the error when nobody can answer (the host went away while a runner waited).
    const ErrorCode* unavailable = nullptr;
    // answered_by_host: the error, and the words before "failed in the host", when answering threw.
    const ErrorCode* failed = nullptr;
    std::string_view failing = "the host service";
    // answered_by_host: answers one request, `body` being this module's encoding.
    Result<std::string> (*answer)(const ExtensionScope& scope, std::string_view body) = nullptr;
    // answered_by_host: whether this call's requests need the host at all (null: always). A call
    // the host has nothing to say about is answered where the plugin runs, by answer().
    bool (*worth_asking)(const Call& call) = nullptr;
};

// Every host extension this host offers, in no particular order.
std::span<const HostExtension* const> host_extensions();
// The module of extension `id`; null when this host does not offer it.
const HostExtension* find_host_extension(std::string_view id);

// Asks `extension` for the call `call` (may be null) of the plugin whose host context is
// `host_context`, with `body` (built by `encode`, which may refuse with an Error): forwarded to
// whoever answers for this plugin (plugin/host_services.hpp's forward, the runner's link) when the
// extension is answered by the host and someone forwards, else answered here. Never throws.
Result<std::string> ask_extension(const HostExtension& extension, void* host_context,
                                  const skillhost_call_context* call, Result<std::string> body) noexcept;

// `extension`'s failed error for the exception being handled ("... failed in the host: what").
Error extension_failure(const HostExtension& extension) noexcept;

template <typename Encode>
Result<std::string> ask_extension_with(const HostExtension& extension, void* host_context,
                                       const skillhost_call_context* call, Encode&& encode) noexcept {
    try {
        return ask_extension(extension, host_context, call, encode());
    } catch (...) {
        return extension_failure(extension);
    }
}

// extension.answer(scope, body), with an exception turned into the extension's failed error: how
// the host answers a request, for an in-process plugin and for a runner's.
Result<std::string> answer_extension(const HostExtension& extension, const ExtensionScope& scope,
                                     std::string_view body) noexcept;

// The call control behind an ABI call context (null: no call, or no control).
inline CallControl* control_of(const skillhost_call_context* call) noexcept {
    return call ? static_cast<CallControl*>(call->host_call) : nullptr;
}

// Writes an error to `writer` (which may be null or lack the function).
void write_error(const skillhost_result_writer* writer, std::string_view code, std::string_view message,
                 std::string_view details_json);

}  // namespace skillhost::plugin
