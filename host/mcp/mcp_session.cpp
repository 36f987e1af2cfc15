#include "mcp/mcp_session.hpp"

#include "base/json_text.hpp"
#include "catalog/catalog_render.hpp"
#include "mcp/approval_elicitation.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/protocol_version.hpp"
#include "mcp/tool_listing.hpp"
#include "mcp/tool_result.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

const json::value kNullId = nullptr;

spdlog::level::level_enum spdlog_level(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return spdlog::level::debug;
        case LogLevel::info:
        case LogLevel::notice: return spdlog::level::info;
        case LogLevel::warning: return spdlog::level::warn;
        case LogLevel::error: return spdlog::level::err;
        default: return spdlog::level::critical;
    }
}

std::string list_supported_versions() {
    std::string out;
    for (auto v : kSupportedProtocolVersions) {
        if (!out.empty()) out += ", ";
        out += v;
    }
    return out;
}

}  // namespace

McpSession::McpSession(const exec::CallPipeline& pipeline, reload::LiveCatalog& catalog, policy::UserContext user,
                       McpSessionOptions options, MessageSink sink)
    : pipeline_(pipeline),
      catalog_(catalog),
      user_(std::move(user)),
      options_(std::move(options)),
      sink_(std::move(sink)),
      runner_(options_.call_threads) {
    {
        auto snapshot = catalog_.snapshot();
        visible_fingerprint_ = visible_tools_fingerprint(pipeline_.visible_entries(*snapshot, user_));
    }
    subscription_ =
        catalog_.subscribe([this](const reload::CatalogUpdate& update) { on_catalog_update(update.new_snapshot); });
}

McpSession::~McpSession() {
    close();
}

void McpSession::close() {
    subscription_.reset();
    {
        std::lock_guard lock(calls_mutex_);
        closing_ = true;
        for (auto& [key, call] : in_flight_) call.cancel->store(true);
    }
    {
        std::lock_guard lock(replies_mutex_);
        replies_closed_ = true;
    }
    reply_arrived_.notify_all();
    runner_.shutdown();
}

std::size_t McpSession::calls_in_flight() const {
    std::lock_guard lock(calls_mutex_);
    return in_flight_.size();
}

void McpSession::send(const json::value& message) {
    const std::string text = json::serialize(message);
    std::lock_guard lock(output_mutex_);
    sink_(text);
}

void McpSession::log(LogLevel level, std::string_view message, json::value data) {
    spdlog::log(spdlog_level(level), "mcp: {}", message);
    if (!initialize_answered_.load() || level < log_level_.load()) return;
    json::object params{{"level", to_string(level)}, {"logger", "skillhost"}};
    if (data.is_null()) {
        params["data"] = message;
    } else {
        json::object d{{"message", message}, {"details", std::move(data)}};
        params["data"] = std::move(d);
    }
    send(make_notification("notifications/message", std::move(params)));
}

void McpSession::handle_line(std::string_view text) {
    // Blank lines between messages are harmless; ignore them rather than answering parse errors.
    if (std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; })) return;
    json::value message;
    std::string problem;
    if (!parse_json(text, message, problem)) {
        send(make_error(kNullId, rpc_code::parse_error,
                        "parse error: " + problem + "; send one JSON-RPC message per line"));
        return;
    }
    handle_message(message);
}

void McpSession::handle_message(const json::value& message) {
    if (message.is_array()) {
        send(make_error(
            kNullId, rpc_code::invalid_request,
            "JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send each message on its own line"));
        return;
    }
    const json::object* obj = message.if_object();
    if (!obj) {
        send(make_error(kNullId, rpc_code::invalid_request, "a JSON-RPC message must be an object"));
        return;
    }
    const json::value* id = obj->if_contains("id");
    const json::value* method = obj->if_contains("method");
    const json::value* version = obj->if_contains("jsonrpc");
    const json::value& reply_id = (id && is_valid_id(*id)) ? *id : kNullId;
    if (!version || !version->is_string() || version->get_string() != "2.0") {
        send(make_error(reply_id, rpc_code::invalid_request, "invalid request: \"jsonrpc\" must be \"2.0\""));
        return;
    }
    if (!method) {
        if (id && (obj->contains("result") || obj->contains("error"))) return on_client_response(*id, *obj);
        send(make_error(reply_id, rpc_code::invalid_request, "invalid request: \"method\" is missing"));
        return;
    }
    if (!method->is_string()) {
        send(make_error(reply_id, rpc_code::invalid_request, "invalid request: \"method\" must be a string"));
        return;
    }
    static const json::value kNoParams = json::object();
    const json::value* params = obj->if_contains("params");
    if (params && !params->is_object() && !params->is_array()) {
        if (id) send(make_error(reply_id, rpc_code::invalid_request, "invalid request: \"params\" must be an object"));
        return;
    }
    if (!params) params = &kNoParams;
    if (!id) {
        dispatch_notification(method->get_string(), *params);
        return;
    }
    if (!is_valid_id(*id)) {
        send(make_error(kNullId, rpc_code::invalid_request, "invalid request: \"id\" must be a string or an integer"));
        return;
    }
    dispatch_request(*id, method->get_string(), *params);
}

void McpSession::dispatch_notification(std::string_view method, const json::value& params) {
    if (method == "notifications/initialized") {
        initialized_.store(true);
    } else if (method == "notifications/cancelled") {
        on_cancelled(params);
    } else {
        spdlog::debug("mcp: ignoring notification {}", method);
    }
}

void McpSession::dispatch_request(const json::value& id, std::string_view method, const json::value& params) {
    if (method == "initialize") return on_initialize(id, params);
    if (method == "ping") return send(make_result(id, json::object()));
    if (!initialize_answered_.load()) {
        send(make_error(id, rpc_code::server_not_initialized,
                        "server not initialized: send \"initialize\" first (only ping is allowed before it)"));
        return;
    }
    if (method == "tools/list") return on_tools_list(id, params);
    if (method == "tools/call") return on_tools_call(id, params);
    if (method == "logging/setLevel") return on_set_level(id, params);
    send(make_error(
        id, rpc_code::method_not_found,
        "method '" + std::string(method) +
            "' is not supported; this server offers initialize, ping, tools/list, tools/call and logging/setLevel",
        json::object{{"method", method}}));
}

void McpSession::on_initialize(const json::value& id, const json::value& params) {
    const json::object* p = params.if_object();
    const json::value* requested = p ? p->if_contains("protocolVersion") : nullptr;
    if (!requested || !requested->is_string()) {
        send(make_error(
            id, rpc_code::invalid_params,
            "initialize needs params.protocolVersion (a string); this server supports " + list_supported_versions()));
        return;
    }
    if (initialize_answered_.load()) {
        send(make_error(id, rpc_code::invalid_request,
                        "initialize was already answered for this session; start a new one to renegotiate"));
        return;
    }
    protocol_version_ = std::string(negotiate_protocol_version(requested->get_string()));
    // Elicitation exists from 2025-06-18 on; the capability is an object (empty, or with form/url).
    if (const json::value* caps = p->if_contains("capabilities"); caps && caps->is_object())
        if (const json::value* e = caps->get_object().if_contains("elicitation"); e && e->is_object())
            client_elicits_.store(protocol_version_ != "2025-03-26");
    json::object result{
        {"protocolVersion", protocol_version_},
        {"capabilities", json::object{{"tools", json::object{{"listChanged", true}}}, {"logging", json::object()}}},
        {"serverInfo",
         json::object{{"name", "skillhost"}, {"title", "skillhost"}, {"version", options_.server_version}}},
        {"instructions",
         "Tools are skillhost skills, filtered by the policy of user '" + user_.user_id +
             "'. Calls that need approval return the approval id; approve with `skillhost approvals approve ID`."}};
    initialize_answered_.store(true);
    send(make_result(id, std::move(result)));
}

void McpSession::on_tools_list(const json::value& id, const json::value& params) {
    std::optional<std::string> cursor;
    if (const json::object* p = params.if_object()) {
        if (const json::value* c = p->if_contains("cursor"); c && !c->is_null()) {
            if (!c->is_string()) {
                send(make_error(id, rpc_code::invalid_params,
                                "params.cursor must be a string (a nextCursor from tools/list)"));
                return;
            }
            cursor = std::string(c->get_string());
        }
    }
    auto snapshot = catalog_.snapshot();
    auto page = page_tools(pipeline_.visible_entries(*snapshot, user_), cursor, options_.page_size);
    if (!page) {
        send(make_error(id, rpc_code::invalid_params, page.error().message, page.error().to_json()));
        return;
    }
    json::object result{{"tools", std::move(page->tools)}};
    if (page->next_cursor) result["nextCursor"] = *page->next_cursor;
    send(make_result(id, std::move(result)));
}

void McpSession::on_tools_call(const json::value& id, const json::value& params) {
    const json::object* p = params.if_object();
    const json::value* name = p ? p->if_contains("name") : nullptr;
    if (!name || !name->is_string() || name->get_string().empty()) {
        send(make_error(id, rpc_code::invalid_params,
                        "tools/call needs params.name, the name of a tool from tools/list"));
        return;
    }
    json::value args = json::object();
    if (const json::value* a = p->if_contains("arguments"); a && !a->is_null()) {
        if (!a->is_object()) {
            send(make_error(id, rpc_code::invalid_params,
                            "params.arguments must be an object matching the tool's inputSchema",
                            json::object{{"tool", *name}}));
            return;
        }
        args = *a;
    }
    std::string skill_id(name->get_string());
    if (!catalog_.snapshot()->find(skill_id)) {
        send(make_error(id, rpc_code::invalid_params,
                        "unknown tool '" + skill_id + "'; call tools/list for the tools this server offers",
                        json::object{{"tool", skill_id}}));
        return;
    }
    json::value progress_token = nullptr;
    if (const json::value* meta = p->if_contains("_meta"); meta && meta->is_object())
        if (const json::value* t = meta->get_object().if_contains("progressToken");
            t && (t->is_string() || t->is_number()))
            progress_token = *t;

    auto cancel = std::make_shared<std::atomic<bool>>(false);
    const std::string key = id_key(id);
    {
        std::lock_guard lock(calls_mutex_);
        if (closing_) {
            send(make_error(id, rpc_code::internal_error, "the session is closing; reconnect and call again"));
            return;
        }
        if (in_flight_.contains(key)) {
            send(make_error(id, rpc_code::invalid_request,
                            "request id " + compact_json(id) + " is already in use by a running call"));
            return;
        }
        in_flight_.emplace(key, InFlight{cancel, false});
    }
    const bool queued =
        runner_.submit([this, id_copy = json::value(id), skill_id = std::move(skill_id), args = std::move(args),
                        progress_token = std::move(progress_token), cancel]() mutable {
            run_call(id_copy, std::move(skill_id), std::move(args), std::move(progress_token), cancel);
        });
    if (!queued) {
        std::lock_guard lock(calls_mutex_);
        in_flight_.erase(key);
    }
}

void McpSession::run_call(const json::value& id, std::string skill_id, json::value args, json::value progress_token,
                          std::shared_ptr<std::atomic<bool>> cancel) {
    exec::CallRequest request;
    request.skill_id = std::move(skill_id);
    request.args = std::move(args);
    request.user = user_;
    request.requested_by = policy::Requester::mcp();
    request.options.cancel = cancel;
    if (!progress_token.is_null()) {
        request.options.on_progress = [this, progress_token](double progress, double total, std::string_view message) {
            json::object params{{"progressToken", progress_token}, {"progress", progress}};
            if (total > 0) params["total"] = total;
            if (!message.empty()) params["message"] = message;
            send(make_notification("notifications/progress", std::move(params)));
        };
    }
    exec::CallOutcome outcome;
    if (cancel->load()) {
        // Cancelled while it waited for a free slot: never start it.
        outcome.result.error = Error{"CANCELLED", "the client cancelled the call before it started"};
    } else {
        auto snapshot = catalog_.snapshot();
        outcome = pipeline_.call(*snapshot, request);
    }
    std::optional<json::object> approved;
    // Only a session whose credential may approve asks its client: an agent's call-only token must
    // not be able to answer for the approver.
    if (outcome.approval_id && client_elicits_.load() && user_.credential.may(policy::Scope::approve))
        approved = approve_through_client(request, outcome, *cancel);
    bool answer = true;
    {
        std::lock_guard lock(calls_mutex_);
        auto it = in_flight_.find(id_key(id));
        if (it != in_flight_.end()) {
            // MCP: the receiver of notifications/cancelled should not answer the cancelled request.
            answer = !it->second.cancelled_by_client;
            in_flight_.erase(it);
        }
    }
    if (!answer) {
        spdlog::debug("mcp: call {} of {} was cancelled by the client", compact_json(id), request.skill_id);
        return;
    }
    send(make_result(id, approved ? std::move(*approved) : render_call_result(outcome, user_.user_id)));
}

std::optional<json::object> McpSession::approve_through_client(const exec::CallRequest& request,
                                                               const exec::CallOutcome& outcome,
                                                               const std::atomic<bool>& cancel) {
    const std::string& approval_id = *outcome.approval_id;
    auto response = ask_client(
        "elicitation/create",
        approval_elicitation_params(request.skill_id, request.args, approval_id, outcome.result.error.message), cancel,
        options_.elicitation_timeout);
    if (!response) return std::nullopt;
    const ApprovalAnswer answer = read_approval_answer(*response);
    const policy::Resolver resolver{user_.user_id, user_.role, user_.credential, true};
    if (answer.kind == ApprovalAnswer::Kind::undecided) return std::nullopt;
    if (answer.kind == ApprovalAnswer::Kind::reject) {
        auto rejected = pipeline_.reject(approval_id, resolver, answer.reason);
        exec::CallOutcome refused;
        refused.result.error = rejected ? Error{"APPROVAL_REJECTED",
                                                "the call was rejected in the MCP client: " + answer.reason,
                                                {{"approval_id", approval_id}},
                                                {"ask the user before calling this tool again"}}
                                        : rejected.error();
        return render_call_result(refused, user_.user_id);
    }
    // The pipeline directly rather than app::approve_and_resume: this approval is the session's own
    // call (requested by "mcp"), never an operator run's, so there is no run to resume, and the
    // session holds the pipeline, not the whole runtime.
    auto snapshot = catalog_.snapshot();
    auto approved = pipeline_.approve(*snapshot, approval_id, resolver);
    exec::CallOutcome result;
    if (approved)
        result.result = std::move(approved->result);
    else
        result.result.error = approved.error();
    return render_call_result(result, user_.user_id);
}

std::optional<json::object> McpSession::ask_client(std::string_view method, json::object params,
                                                   const std::atomic<bool>& cancel, std::chrono::milliseconds limit) {
    auto pending = std::make_shared<PendingReply>();
    json::value id;
    {
        std::lock_guard lock(replies_mutex_);
        if (replies_closed_) return std::nullopt;
        id = "skillhost-" + std::to_string(++next_request_id_);
        pending_replies_.emplace(id_key(id), pending);
    }
    send(make_request(id, method, std::move(params)));
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::unique_lock lock(replies_mutex_);
    // Wakes on a reply or close(); polls the cancel flag, which another thread sets without this lock.
    while (!pending->response && !replies_closed_ && !cancel.load() && std::chrono::steady_clock::now() < deadline)
        reply_arrived_.wait_for(lock, std::chrono::milliseconds(20));
    pending_replies_.erase(id_key(id));
    return std::move(pending->response);
}

void McpSession::on_client_response(const json::value& id, const json::object& message) {
    {
        std::lock_guard lock(replies_mutex_);
        auto it = pending_replies_.find(id_key(id));
        if (it == pending_replies_.end()) {
            spdlog::debug("mcp: ignoring a response to unknown request {}", compact_json(id));
            return;
        }
        it->second->response = message;
    }
    reply_arrived_.notify_all();
}

void McpSession::on_cancelled(const json::value& params) {
    const json::object* p = params.if_object();
    const json::value* request_id = p ? p->if_contains("requestId") : nullptr;
    if (!request_id || !is_valid_id(*request_id)) return;  // notifications get no error answers
    std::lock_guard lock(calls_mutex_);
    auto it = in_flight_.find(id_key(*request_id));
    if (it == in_flight_.end()) return;  // finished already, or never existed: the spec says ignore it
    it->second.cancelled_by_client = true;
    it->second.cancel->store(true);
}

void McpSession::on_set_level(const json::value& id, const json::value& params) {
    const json::object* p = params.if_object();
    const json::value* level = p ? p->if_contains("level") : nullptr;
    auto parsed = (level && level->is_string()) ? parse_log_level(level->get_string()) : std::nullopt;
    if (!parsed) {
        send(make_error(id, rpc_code::invalid_params,
                        "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency"));
        return;
    }
    log_level_.store(*parsed);
    send(make_result(id, json::object()));
}

void McpSession::on_catalog_update(const std::shared_ptr<const catalog::CatalogSnapshot>& snapshot) {
    if (!snapshot) return;
    std::string fingerprint = visible_tools_fingerprint(pipeline_.visible_entries(*snapshot, user_));
    {
        std::lock_guard lock(fingerprint_mutex_);
        if (fingerprint == visible_fingerprint_) return;
        visible_fingerprint_ = std::move(fingerprint);
    }
    if (!initialize_answered_.load()) return;  // the client lists tools after initializing anyway
    send(make_notification("notifications/tools/list_changed", json::object()));
    for (const auto& failure : snapshot->failures())
        log(LogLevel::warning,
            "plugin " + failure.manifest_file.filename().string() + " is not loaded: " + failure.error.message,
            failure.error.to_json());
}

}  // namespace skillhost::mcp
