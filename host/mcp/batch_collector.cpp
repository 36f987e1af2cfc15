#include "mcp/batch_collector.hpp"

#include "mcp/json_rpc.hpp"

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

// A notification or a response from the client: never answered.
bool is_unanswered(const json::value& message) {
    const json::object* obj = message.if_object();
    if (!obj) return false;
    const json::value* version = obj->if_contains("jsonrpc");
    if (!version || !version->is_string() || version->get_string() != "2.0") return false;
    if (const json::value* method = obj->if_contains("method")) return method->is_string() && !obj->contains("id");
    return obj->contains("id") && (obj->contains("result") || obj->contains("error"));
}

// The id_key of a message the session answers with its own id (a request, or an invalid message
// with a valid id), else nullopt: invalid messages without one are answered with a null id.
std::optional<std::string> answered_key(const json::value& message) {
    const json::object* obj = message.if_object();
    if (!obj || is_unanswered(message)) return std::nullopt;
    const json::value* id = obj->if_contains("id");
    if (!id || !is_valid_id(*id)) return std::nullopt;
    return id_key(*id);
}

}  // namespace

bool batch_expects_answer(const json::array& batch) {
    for (const auto& message : batch)
        if (!is_unanswered(message)) return true;
    return false;
}

bool BatchCollector::open(const std::string& key, const json::array& batch) {
    Batch b;
    b.dispatcher = std::this_thread::get_id();
    for (const auto& message : batch)
        if (auto k = answered_key(message)) b.pending.insert(*k);
    std::lock_guard lock(mutex_);
    if (batches_.size() >= kMaxOpenBatches) return false;
    batches_[key] = std::move(b);
    return true;
}

std::optional<BatchAnswer> BatchCollector::dispatched(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = batches_.find(key);
    if (it == batches_.end()) return std::nullopt;
    it->second.dispatching = false;
    return take_if_complete(it);
}

bool BatchCollector::absorb(const std::string& key, const std::string& text, std::optional<BatchAnswer>& completed) {
    std::lock_guard lock(mutex_);
    for (auto it = batches_.begin(); it != batches_.end(); ++it) {
        Batch& b = it->second;
        auto pending = key.empty() ? b.pending.end() : b.pending.find(key);
        // A null id: an error about an invalid message of the batch being dispatched on this thread.
        const bool mine =
            pending != b.pending.end() || (key.empty() && b.dispatching && b.dispatcher == std::this_thread::get_id());
        if (!mine) continue;
        if (pending != b.pending.end()) b.pending.erase(pending);
        if (!b.responses.empty()) b.responses += ',';
        b.responses += text;
        completed = take_if_complete(it);
        return true;
    }
    return false;
}

std::optional<BatchAnswer> BatchCollector::forget(const std::string& key) {
    std::lock_guard lock(mutex_);
    for (auto it = batches_.begin(); it != batches_.end(); ++it) {
        auto pending = it->second.pending.find(key);
        if (pending == it->second.pending.end()) continue;
        it->second.pending.erase(pending);
        return take_if_complete(it);
    }
    return std::nullopt;
}

std::optional<BatchAnswer> BatchCollector::take_if_complete(std::map<std::string, Batch>::iterator it) {
    const Batch& b = it->second;
    if (b.dispatching || !b.pending.empty()) return std::nullopt;
    std::optional<BatchAnswer> answer;
    // A batch of notifications only is answered with nothing at all (JSON-RPC 2.0).
    if (!b.responses.empty()) answer = BatchAnswer{it->first, "[" + b.responses + "]"};
    batches_.erase(it);
    return answer;
}

}  // namespace skillhost::mcp
