// McpSession's JSON-RPC batches: checked here, then each message dispatched as if it came alone,
// the responses gathered by BatchCollector.
#include "mcp/json_rpc.hpp"
#include "mcp/mcp_session.hpp"

namespace skillhost::mcp {

namespace json = boost::json;

void McpSession::handle_batch(const json::array& batch, const std::string& key) {
    const json::value null_id = nullptr;
    // 2025-03-26 says servers MUST accept batches; 2025-06-18 removed them. Before initialize no
    // version is agreed yet (and initialize itself must not come in a batch).
    if (!initialize_answered_.load() || protocol_version_ != "2025-03-26") {
        send(make_error(null_id, rpc_code::invalid_request,
                        std::string("JSON-RPC batches are accepted only in sessions that negotiated MCP 2025-03-26 "
                                    "(2025-06-18 removed them); ") +
                            (initialize_answered_.load() ? "this session speaks " + protocol_version_
                                                         : "send initialize on its own first") +
                            ", so send each message on its own"));
        return;
    }
    if (batch.empty()) {
        send(make_error(null_id, rpc_code::invalid_request, "an empty batch: send at least one message in it"));
        return;
    }
    if (batch.size() > kMaxBatchLength) {
        send(make_error(null_id, rpc_code::invalid_request,
                        "a batch of " + std::to_string(batch.size()) + " messages; at most " +
                            std::to_string(kMaxBatchLength) + " may come in one batch, send the rest in another"));
        return;
    }
    if (!batches_.open(key, batch)) {
        send(make_error(null_id, rpc_code::internal_error,
                        "too many batches of this session are still waiting for answers (" +
                            std::to_string(kMaxOpenBatches) + "); wait for their answers before sending more"));
        return;
    }
    for (const auto& message : batch) {
        if (message.is_array())
            send(make_error(null_id, rpc_code::invalid_request, "a batch may not contain another batch"));
        else
            handle_message(message);
    }
    if (auto done = batches_.dispatched(key)) send_batch_answer(*done);
}

void McpSession::send_batch_answer(const BatchAnswer& answer) {
    OutgoingMessage out;
    out.kind = OutgoingMessage::Kind::response;
    out.id_key = answer.key;
    out.text = answer.text;
    std::lock_guard lock(output_mutex_);
    sink_(out);
}

}  // namespace skillhost::mcp
