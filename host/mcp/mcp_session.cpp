#include "mcp/mcp_session.hpp"
#include "mcp/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include "base/json_text.hpp"
#include "catalog/catalog_render.hpp"
#include "exec/prepared_call.hpp"
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

McpSession::McpSession(const exec::CallPipeline& pipeline, reload::LiveCatalog& catalog, auth::UserContext user,
                       McpSessionOptions options, MessageSink sink)
    : pipeline_(pipeline),
      catalog_(catalog),
      user_(std::move(user)),
      options_(std::move(options)),
      sink_(std::move(sink)),
      resources_(pipeline),
      prompts_(pipeline, resources_, options_.playbooks),
      runner_(options_.call_threads),
      list_watch_(runner_, options_.list_check_interval, [this] { look_for_list_changes(); }) {
    {
        auto snapshot = catalog_.snapshot();
        visible_fingerprint_ = visible_tools_fingerprint(pipeline_.visible_entries(*snapshot, user_));
        resource_fingerprints_ = resources_.source_fingerprints(*snapshot, user_);
        prompt_fingerprint_ = prompts_.source_fingerprint(*snapshot, user_);
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
    list_watch_.stop();
    runner_.shutdown();
    // Cancelled calls are answered within the executor's watch tick, hung plugins or not; queued
    // ones start cancelled and are answered at once. Their answers still use this session.
    std::unique_lock lock(calls_mutex_);
    calls_changed_.wait(lock, [&] { return in_flight_.empty() && answering_ == 0; });
}

std::size_t McpSession::calls_in_flight() const {
    std::lock_guard lock(calls_mutex_);
    return in_flight_.size();
}

void McpSession::send(const json::value& message, std::string_view related_key) {
    OutgoingMessage out;
    out.related_key = related_key;
    if (const json::object* obj = message.if_object()) {
        const json::value* id = obj->if_contains("id");
        if (const json::value* method = obj->if_contains("method")) {
            out.kind = id ? OutgoingMessage::Kind::request : OutgoingMessage::Kind::notification;
            if (method->is_string()) out.method = method->get_string();
        } else
            out.kind = OutgoingMessage::Kind::response;
        if (id) out.id_key = id_key(*id);
    }
    out.text = json::serialize(message);
    if (out.kind == OutgoingMessage::Kind::response) {
        std::optional<BatchAnswer> batch_done;
        static const std::string null_key = id_key(kNullId);
        if (batches_.absorb(out.id_key == null_key ? std::string() : out.id_key, out.text, batch_done)) {
            if (batch_done) send_batch_answer(*batch_done);
            return;
        }
    }
    std::lock_guard lock(output_mutex_);
    sink_(out);
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
    if (message.is_array()) return handle_batch(message.get_array(), "batch-" + std::to_string(++next_batch_));
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
    if (method == "resources/list") return on_resources_list(id, params, false);
    if (method == "resources/templates/list") return on_resources_list(id, params, true);
    if (method == "resources/read") return on_resources_read(id, params);
    if (method == "resources/subscribe") return on_resources_subscribe(id, params, true);
    if (method == "resources/unsubscribe") return on_resources_subscribe(id, params, false);
    if (method == "prompts/list") return on_prompts_list(id, params);
    if (method == "prompts/get") return on_prompts_get(id, params);
    if (method == "completion/complete") return on_complete(id, params);
    send(make_error(
        id, rpc_code::method_not_found,
        "method '" + std::string(method) +
            "' is not supported; this server offers initialize, ping, tools/list, tools/call, logging/setLevel, "
            "resources/list, resources/templates/list, resources/read, resources/subscribe, "
            "resources/unsubscribe, prompts/list, prompts/get and completion/complete",
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
    if (const json::value* caps = p->if_contains("capabilities"); caps && caps->is_object())
        if (const json::value* sampling = caps->get_object().if_contains("sampling"); sampling && sampling->is_object())
            client_samples_.store(true);
    json::object result{
        {"protocolVersion", protocol_version_},
        {"capabilities", json::object{{"tools", json::object{{"listChanged", true}}},
                                      {"resources", json::object{{"subscribe", true}, {"listChanged", true}}},
                                      {"prompts", json::object{{"listChanged", true}}},
                                      {"completions", json::object()},
                                      {"logging", json::object()}}},
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
    auto ticket = std::make_shared<CallTicket>();
    exec::CallRequest& request = ticket->request;
    if (const json::value* a = p->if_contains("arguments"); a && !a->is_null()) {
        if (!a->is_object()) {
            send(make_error(id, rpc_code::invalid_params,
                            "params.arguments must be an object matching the tool's inputSchema",
                            json::object{{"tool", *name}}));
            return;
        }
        request.args = *a;
    }
    request.skill_id = std::string(name->get_string());
    // The snapshot the call is looked up in here is the one it runs from.
    ticket->snapshot = catalog_.snapshot();
    if (!ticket->snapshot->find(request.skill_id)) {
        Error missing = exec::skill_not_found(*ticket->snapshot, request.skill_id);
        send(make_error(id, rpc_code::invalid_params,
                        "unknown tool: " + missing.message + "; call tools/list for the tools this server offers",
                        json::object{{"tool", missing.details["skill"]}, {"similar", missing.details["similar"]}}));
        return;
    }
    json::value progress_token = nullptr;
    if (const json::value* meta = p->if_contains("_meta"); meta && meta->is_object())
        if (const json::value* t = meta->get_object().if_contains("progressToken");
            t && (t->is_string() || t->is_number()))
            progress_token = *t;
    request.user = user_;
    request.requested_by = auth::Requester::mcp();
    request.options.cancel = std::make_shared<std::atomic<bool>>(false);
    ticket->id = id;
    std::function<void()> handover;
    if (options_.reader_handover) {
        handover = options_.reader_handover();
        if (handover) ticket->run_here = true;
    }

    const std::string key = id_key(id);
    attach_call_services(request, *ticket->snapshot->find(request.skill_id), key, std::move(progress_token),
                         std::move(handover));
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
        if (running_calls_ >= std::max<std::size_t>(1, options_.call_threads)) {
            if (queued_calls_.size() >= options_.max_queued_calls) {
                send(make_error(id, rpc_code::internal_error,
                                "too many tool calls are waiting in this session (" +
                                    std::to_string(queued_calls_.size()) +
                                    "); wait for answers before sending more, or cancel some"));
                return;
            }
            in_flight_.emplace(key, InFlight{request.options.cancel, false});
            ticket->run_here = false;  // it starts from whichever thread finishes a call
            queued_calls_.push_back(std::move(ticket));
            return;
        }
        in_flight_.emplace(key, InFlight{request.options.cancel, false});
        ++running_calls_;
    }
    start_call(std::move(ticket));
}

void McpSession::start_call(std::shared_ptr<CallTicket> ticket) {
    // A call answered before pipeline_.start() returns (refused, queued for approval, cancelled while
    // waiting) hands the next queued call back to this loop instead of starting it inside itself, so
    // a long queue never turns into deep recursion.
    static thread_local std::shared_ptr<CallTicket>* hand_back = nullptr;
    if (hand_back) {
        *hand_back = std::move(ticket);
        return;
    }
    std::shared_ptr<CallTicket> next;
    struct Reset {
        ~Reset() { hand_back = nullptr; }
    } reset;
    hand_back = &next;
    while (ticket) {
        start_one_call(ticket);
        ticket = std::move(next);
        next.reset();
    }
}

void McpSession::start_one_call(const std::shared_ptr<CallTicket>& ticket_ptr) {
    const std::shared_ptr<CallTicket> ticket = ticket_ptr;
    if (ticket->request.options.cancel->load()) {
        // Cancelled while it waited for its turn: never start it.
        exec::CallOutcome outcome;
        outcome.result.error = Error{errors::kCancelled, "the client cancelled the call before it started"};
        return finish_call(*ticket, render_call_result(outcome, user_.user_id));
    }
    const auto& snapshot = *ticket->snapshot;
    pipeline_.start(
        snapshot, ticket->request,
        [this, ticket](exec::CallOutcome outcome) mutable {
            // Only a session whose credential may approve asks its client: an agent's call-only token must
            // not be able to answer for the approver.
            if (!outcome.approval_id || !client_elicits_.load() || !user_.credential.may(auth::Scope::approve))
                return finish_call(*ticket, render_call_result(outcome, user_.user_id));
            // Asking the client waits for its answer, which this thread may be the one to read.
            auto shared = std::make_shared<exec::CallOutcome>(std::move(outcome));
            const bool queued = runner_.submit([this, ticket, shared] {
                auto approved = approve_through_client(ticket->request, *shared, *ticket->request.options.cancel);
                finish_call(*ticket, approved ? std::move(*approved) : render_call_result(*shared, user_.user_id));
            });
            if (!queued) finish_call(*ticket, render_call_result(*shared, user_.user_id));
        },
        ticket->run_here ? exec::RunOn::this_thread : exec::RunOn::worker);
}

void McpSession::finish_call(const CallTicket& ticket, json::object result) {
    bool answer = true;
    std::shared_ptr<CallTicket> next;
    {
        std::lock_guard lock(calls_mutex_);
        if (auto it = in_flight_.find(id_key(ticket.id)); it != in_flight_.end()) {
            // MCP: the receiver of notifications/cancelled should not answer the cancelled request.
            answer = !it->second.cancelled_by_client;
            // Before the answer goes out: a client may reuse the id as soon as it has the answer.
            in_flight_.erase(it);
        }
        if (!queued_calls_.empty()) {
            next = std::move(queued_calls_.front());
            queued_calls_.pop_front();
        } else {
            --running_calls_;
        }
        ++answering_;
    }
    if (answer)
        send(make_result(ticket.id, std::move(result)));
    else
        spdlog::debug("mcp: call {} of {} was cancelled by the client", compact_json(ticket.id),
                      ticket.request.skill_id);
    // While still answering (close() waits for that): the client may have seen a list change.
    bool listed = false;
    {
        std::lock_guard lock(listed_mutex_);
        listed = listed_resources_ || listed_prompts_;
    }
    if (listed) list_watch_.request();
    {
        std::lock_guard lock(calls_mutex_);
        --answering_;
        // Under the lock: once close() sees nothing in flight or answering, the session may be gone.
        calls_changed_.notify_all();
    }
    if (next) start_call(std::move(next));
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
    const decisions::Resolver resolver{user_.user_id, user_.role, user_.credential, true};
    if (answer.kind == ApprovalAnswer::Kind::undecided) return std::nullopt;
    if (answer.kind == ApprovalAnswer::Kind::reject) {
        auto rejected = pipeline_.reject(approval_id, resolver, answer.reason);
        exec::CallOutcome refused;
        refused.result.error = rejected ? Error{errors::kApprovalRejected,
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
                                                   const std::atomic<bool>& cancel, std::chrono::milliseconds limit,
                                                   std::string_view related_key) {
    auto pending = std::make_shared<PendingReply>();
    json::value id;
    {
        std::lock_guard lock(replies_mutex_);
        if (replies_closed_) return std::nullopt;
        id = "skillhost-" + std::to_string(++next_request_id_);
        pending_replies_.emplace(id_key(id), pending);
    }
    send(make_request(id, method, std::move(params)), related_key);
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
    {
        std::lock_guard lock(calls_mutex_);
        auto it = in_flight_.find(id_key(*request_id));
        if (it == in_flight_.end()) return;  // finished already, or never existed: the spec says ignore it
        it->second.cancelled_by_client = true;
        it->second.cancel->store(true);
    }
    if (auto batch_done = batches_.forget(id_key(*request_id))) send_batch_answer(*batch_done);
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
    on_resources_update(*snapshot);
    on_prompts_update(*snapshot);
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
