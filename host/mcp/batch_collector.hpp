// JSON-RPC batches, which MCP 2025-03-26 says a server MUST accept (2025-06-18 removed them): the
// responses to a batch's requests are gathered, whichever thread answers them and whenever, and go
// out together as one JSON array once the last one is in (JSON-RPC 2.0, section 6).
#pragma once

#include <boost/json/array.hpp>

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

namespace skillhost::mcp {

inline constexpr std::size_t kMaxBatchLength = 100;  // messages in one batch
inline constexpr std::size_t kMaxOpenBatches = 64;   // batches of a session still waiting for answers

// Whether any message of the batch will be answered: a request, or something invalid (answered with
// an error). A batch of notifications and responses only is answered with nothing.
bool batch_expects_answer(const boost::json::array& batch);

// A batch's answer: the JSON array of its responses, and the key it was opened with.
struct BatchAnswer {
    std::string key;
    std::string text;
};

class BatchCollector {
public:
    // Starts collecting for `batch`, which this thread dispatches next. False when kMaxOpenBatches
    // batches still wait for answers.
    bool open(const std::string& key, const boost::json::array& batch);
    // After the batch's messages were dispatched: its answer when every response is in already.
    std::optional<BatchAnswer> dispatched(const std::string& key);
    // A response about to be sent (`id_key` of its id, "" for a null id): true when it belongs to an
    // open batch; `completed` is then set when it was the batch's last one.
    bool absorb(const std::string& id_key, const std::string& text, std::optional<BatchAnswer>& completed);
    // A batched request that will never be answered (the client cancelled it).
    std::optional<BatchAnswer> forget(const std::string& id_key);

private:
    struct Batch {
        std::multiset<std::string> pending;  // id_keys of requests not yet answered
        std::string responses;               // the texts so far, comma-separated
        bool dispatching = true;             // messages still being handed to the session
        std::thread::id dispatcher;          // errors without an id come from this thread while dispatching
    };
    std::optional<BatchAnswer> take_if_complete(std::map<std::string, Batch>::iterator it);

    std::mutex mutex_;
    std::map<std::string, Batch> batches_;  // by key
};

}  // namespace skillhost::mcp
