// The events each MCP event stream of a session sent, so a client that lost the connection can
// resume with GET and `Last-Event-ID` (Streamable HTTP, "Resumability and Redelivery"). Every
// event carries an id "<stream>-<seq>", unique in the session; a stream may start with a priming event
// (its first id and `retry:`, no data) so a client can resume even before the first message.
// Bounded: a stream keeps its last events_per_stream events (and bytes_per_stream bytes); the logs
// of finished_streams streams that ended are kept, older ones are dropped. A resumption whose events
// are gone is refused with MCP_EVENTS_GONE. Not thread-safe: the session's mutex guards it.
#pragma once

#include "base/error.hpp"
#include "server/event_channel.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace skillhost::server {

struct McpStreamLimits {
    std::size_t events_per_stream = 256;
    std::size_t bytes_per_stream = 256 * 1024;
    std::size_t finished_streams = 16;
    std::chrono::milliseconds retry{1000};  // the `retry:` a stream's priming event announces
};

class McpStreamLog {
public:
    explicit McpStreamLog(McpStreamLimits limits = {}) : limits_(limits) {}

    // Numbers the streams from `first` on (1 by default): a session rebuilt after a restart starts
    // past the numbers its earlier life may have given, so an old event id never names a new stream.
    void number_from(std::uint64_t first) { next_stream_ = first_stream_ = first; }
    // The number of the first stream of this log: ids below it are from before (see number_from).
    std::uint64_t first_stream() const { return first_stream_; }

    // A new stream delivered to `channel`: its number. `prime`: its priming event (`event: priming`,
    // its id and retry, empty data) is pushed first; only clients of MCP 2025-11-25 and later
    // expect one (the official SDK's server sends none to older clients either).
    std::uint64_t open(std::shared_ptr<EventChannel> channel, bool prime = true);
    // The stream number of an event id "<stream>-<seq>", or 0 when it is not one.
    static std::uint64_t stream_of(std::string_view event_id);
    // Records an event of the stream and delivers it to the stream's channel (if one is attached);
    // `last` ends the stream after it.
    void push(std::uint64_t stream, std::string_view name, const std::string& data, bool last);
    // Ends the stream without another event (its request was cancelled, the session closed).
    void finish(std::uint64_t stream);
    // Re-attaches the stream named by `last_event_id` to `channel`: the events after that id are
    // pushed to it first, then whatever the stream sends next; a stream that ended ends after the
    // replay. Errors: a malformed id (MCP_BAD_EVENT_ID), an unknown stream or events no longer kept
    // (MCP_EVENTS_GONE).
    Result<std::uint64_t> resume(std::string_view last_event_id, std::shared_ptr<EventChannel> channel);
    // Ends every stream (the session ends).
    void finish_all();

private:
    struct Stream {
        std::uint64_t next_seq = 1;  // 0 is the priming event
        std::deque<std::pair<std::uint64_t, StreamEvent>> events;
        std::size_t bytes = 0;
        std::uint64_t dropped_through = 0;  // the highest seq no longer kept
        bool finished = false;
        std::shared_ptr<EventChannel> channel;
    };
    void forget_old_finished();

    const McpStreamLimits limits_;
    std::uint64_t next_stream_ = 1;
    std::uint64_t first_stream_ = 1;
    std::map<std::uint64_t, Stream> streams_;
};

}  // namespace skillhost::server
