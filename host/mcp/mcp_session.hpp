// One MCP client connection, independent of its transport: JSON-RPC 2.0 messages go in through
// handle_line()/handle_message(), everything the server says (responses, notifications) comes out
// through the MessageSink, one compact JSON text per message. The stdio transport and, later, the
// daemon's Streamable HTTP transport both drive this class.
//
// Every tools/call runs through exec::CallPipeline (policy, approvals, audit) as the session's user:
// admitted on the thread that handed the message in and run there when the transport can give
// its reading to another thread if the call runs long (stdio), else on an executor worker (the one
// hand-off, so the reader stays free for notifications/cancelled); answered from the thread that
// finished it. Asking the client to approve a call (elicitation) waits for the client, so it runs on a small
// pool of its own.
#pragma once

#include "exec/call_pipeline.hpp"
#include "exec/prompt_access.hpp"
#include "exec/resource_access.hpp"
#include "mcp/batch_collector.hpp"
#include "mcp/call_runner.hpp"
#include "mcp/list_change_watch.hpp"
#include "mcp/log_level.hpp"
#include "mcp/protocol_version.hpp"
#include "auth/user_context.hpp"
#include "reload/live_catalog.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <optional>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace skillhost::mcp {

struct McpSessionOptions {
    std::string server_version{skillhost_version()};
    std::size_t page_size = 50;           // tools per tools/list page
    std::size_t call_threads = 4;         // tools/call requests running at once (and elicitations waiting)
    std::size_t max_queued_calls = 1024;  // tools/call requests waiting for one of those; more are refused
    // How long a call waits for the user's answer to an approval elicitation before it returns
    // APPROVAL_REQUIRED (the approval stays pending for the CLI).
    std::chrono::milliseconds elicitation_timeout{std::chrono::minutes(10)};
    // Set by a transport whose reading thread may run a call itself (stdio: StdioTransport). Called
    // on the thread that hands in a tools/call; returns what gives that thread's reading to another
    // thread once the call runs long, or nothing when the call must go to an executor worker.
    std::function<std::function<void()>()> reader_handover{};
    // A plugin's completion request goes to the client (sampling/createMessage) when the client
    // declared sampling; false: always to the model router (server.mcp_client_sampling).
    bool client_sampling = true;
    // The user's learned playbooks, published as prompts; none without it. Must outlive the session.
    const store::GuidanceStore* playbooks = nullptr;
    // After a call, resources and prompts the client listed are listed again (at most once per
    // this interval) and a list_changed sent when what they are changed: a memory stored, a
    // playbook learned, between reloads.
    std::chrono::milliseconds list_check_interval{1000};
};

// One message from the server, serialized once; what it is comes along so that a transport can
// route it without parsing it again.
struct OutgoingMessage {
    enum class Kind { response, request, notification };
    Kind kind = Kind::notification;
    std::string id_key;  // id_key() of a response's or request's id
    std::string method;  // a request's or notification's method
    std::string text;    // compact JSON, no trailing newline
    // id_key() of the tools/call a notification or request is about (a tool's log line, its
    // sampling or elicitation request); empty when it concerns no one call.
    std::string related_key;
    // A sink that only wants the text may take `const std::string&`.
    operator const std::string&() const { return text; }
};

// Receives each message. Called from several threads, but never concurrently: the session
// serialises output.
using MessageSink = std::function<void(const OutgoingMessage& message)>;

class McpSession {
public:
    // `pipeline` and `catalog` must outlive the session.
    McpSession(const exec::CallPipeline& pipeline, reload::LiveCatalog& catalog, auth::UserContext user,
               McpSessionOptions options, MessageSink sink);
    ~McpSession();
    McpSession(const McpSession&) = delete;
    McpSession& operator=(const McpSession&) = delete;

    // One JSON-RPC message as text (parse errors answer -32700).
    void handle_line(std::string_view text);
    void handle_message(const boost::json::value& message);
    // A JSON-RPC batch (accepted only in sessions that negotiated 2025-03-26): its responses go out
    // as one array, an OutgoingMessage of kind response whose id_key is `key`.
    void handle_batch(const boost::json::array& batch, const std::string& key);

    // Stops accepting calls, cancels the ones in flight and waits for them. Idempotent.
    void close();

    std::size_t calls_in_flight() const;
    const std::string& protocol_version() const { return protocol_version_; }

    // Sends notifications/message when `level` is at or above the client's logging/setLevel (and
    // always logs to stderr through spdlog).
    void log(LogLevel level, std::string_view message, boost::json::value data = nullptr);

private:
    struct InFlight {
        std::shared_ptr<std::atomic<bool>> cancel;
        bool cancelled_by_client = false;
    };
    // A tools/call admitted to the session, waiting for its turn or running.
    struct CallTicket {
        boost::json::value id;
        std::shared_ptr<const catalog::CatalogSnapshot> snapshot;  // the one the call was looked up in
        exec::CallRequest request;
        bool run_here = false;  // on the thread that admitted it (see reader_handover)
    };

    // A request this server sent to the client, waiting for its response.
    struct PendingReply {
        std::optional<boost::json::object> response;
    };

    void send(const boost::json::value& message, std::string_view related_key = {});
    void send_batch_answer(const BatchAnswer& answer);
    // Sends a request to the client and waits for its response; nullopt when the call was
    // cancelled, the session closed or `limit` passed.
    std::optional<boost::json::object> ask_client(std::string_view method, boost::json::object params,
                                                  const std::atomic<bool>& cancel, std::chrono::milliseconds limit,
                                                  std::string_view related_key = {});
    // What the client serves for one call: its log lines, sampling, elicitation (call_services.cpp).
    // `progress_token` null: the client asked for no progress notifications.
    // `hand_reader_over`: set when the call runs on the stdio reader's thread, which hands its
    // reading on to another thread when the call runs long.
    void attach_call_services(exec::CallRequest& request, const catalog::CatalogEntry& entry,
                              const std::string& call_key, boost::json::value progress_token,
                              std::function<void()> hand_reader_over = {});
    class ClientCallServices;
    void on_client_response(const boost::json::value& id, const boost::json::object& message);
    // Resolves a queued call through elicitation/create; nullopt leaves it pending.
    std::optional<boost::json::object> approve_through_client(const exec::CallRequest& request,
                                                              const exec::CallOutcome& outcome,
                                                              const std::atomic<bool>& cancel);
    void dispatch_request(const boost::json::value& id, std::string_view method, const boost::json::value& params);
    void dispatch_notification(std::string_view method, const boost::json::value& params);

    void on_initialize(const boost::json::value& id, const boost::json::value& params);
    void on_tools_list(const boost::json::value& id, const boost::json::value& params);
    void on_tools_call(const boost::json::value& id, const boost::json::value& params);
    void on_set_level(const boost::json::value& id, const boost::json::value& params);
    void on_cancelled(const boost::json::value& params);
    // resources/* (resource_handlers.cpp)
    void on_resources_list(const boost::json::value& id, const boost::json::value& params, bool templates);
    void on_resources_read(const boost::json::value& id, const boost::json::value& params);
    void on_resources_subscribe(const boost::json::value& id, const boost::json::value& params, bool subscribe);
    // After a reload: resources/list_changed when the plugins serving this user's resources changed,
    // resources/updated for each subscribed URI whose plugin was reloaded or removed.
    void on_resources_update(const catalog::CatalogSnapshot& snapshot);
    // prompts/* and completion/complete (prompt_handlers.cpp)
    void on_prompts_list(const boost::json::value& id, const boost::json::value& params);
    void on_prompts_get(const boost::json::value& id, const boost::json::value& params);
    void on_complete(const boost::json::value& id, const boost::json::value& params);
    // After a reload: prompts/list_changed when the plugins publishing this user's prompts changed.
    void on_prompts_update(const catalog::CatalogSnapshot& snapshot);
    void start_call(std::shared_ptr<CallTicket> ticket);
    void start_one_call(const std::shared_ptr<CallTicket>& ticket);
    // Sends the call's answer (unless the client cancelled it), then lets the next queued call start.
    void finish_call(const CallTicket& ticket, boost::json::object result);
    void on_catalog_update(const std::shared_ptr<const catalog::CatalogSnapshot>& snapshot);
    // The list_changed look (ListChangeWatch): the resources and prompts the client listed, listed
    // again and compared by uri and name.
    void look_for_list_changes();
    // Records what the client was given by resources/list or prompts/list ("uri" or "name" keys).
    void remember_listed(std::optional<std::string>& listed, const boost::json::array& items, std::string_view key);

    const exec::CallPipeline& pipeline_;
    reload::LiveCatalog& catalog_;
    const auth::UserContext user_;
    const McpSessionOptions options_;
    MessageSink sink_;

    std::mutex output_mutex_;
    std::atomic<bool> initialize_answered_{false};
    std::atomic<bool> initialized_{false};  // notifications/initialized received
    std::string protocol_version_;
    std::atomic<LogLevel> log_level_{LogLevel::info};
    std::atomic<bool> client_elicits_{false};  // the client declared the elicitation capability
    std::atomic<bool> client_samples_{false};  // the client declared the sampling capability

    std::mutex replies_mutex_;
    std::condition_variable reply_arrived_;
    std::map<std::string, std::shared_ptr<PendingReply>> pending_replies_;  // by id_key
    std::uint64_t next_request_id_ = 0;
    bool replies_closed_ = false;

    mutable std::mutex calls_mutex_;
    std::condition_variable calls_changed_;
    std::map<std::string, InFlight> in_flight_;  // by id_key: every tools/call not yet answered
    std::deque<std::shared_ptr<CallTicket>> queued_calls_;
    std::size_t running_calls_ = 0;  // started and not yet finished
    std::size_t answering_ = 0;      // finish_call()s sending their answer
    bool closing_ = false;

    std::mutex fingerprint_mutex_;
    std::string visible_fingerprint_;

    const exec::ResourceAccess resources_;
    std::mutex resources_mutex_;
    std::set<std::string, std::less<>> subscriptions_;                       // resources/subscribe URIs
    std::map<std::string, std::string, std::less<>> resource_fingerprints_;  // as of the last update

    const exec::PromptAccess prompts_;
    std::mutex prompts_mutex_;
    std::string prompt_fingerprint_;  // as of the last update

    BatchCollector batches_;
    std::atomic<std::uint64_t> next_batch_{0};

    // What the client last listed (uris, prompt names), once it listed them: what list_changed
    // compares with.
    std::mutex listed_mutex_;
    std::optional<std::string> listed_resources_;
    std::optional<std::string> listed_prompts_;

    CallRunner runner_;                  // elicitations, which wait for the client, and list looks
    ListChangeWatch list_watch_;         // after runner_: stopped (in close) before it shuts down
    reload::Subscription subscription_;  // last: released first, before what its callback uses
};

}  // namespace skillhost::mcp
