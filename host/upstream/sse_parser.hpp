// Server-sent events (the WHATWG event-stream format) read incrementally from the pieces of an
// HTTP body as they arrive, as the Streamable HTTP transport delivers JSON-RPC messages. Bounded:
// an event (its data and the line being read) over `max_event_bytes` stops the parser, which then
// reports it and reads nothing more; no recursion, no buffer past the limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::upstream {

struct SseEvent {
    std::string id;     // the stream's last event id when this one was dispatched ("" if none)
    std::string event;  // "message" when the stream named none
    std::string data;   // the data lines joined by '\n'
};

class SseParser {
public:
    using EventHandler = std::function<void(SseEvent event)>;
    SseParser(std::size_t max_event_bytes, EventHandler on_event)
        : max_event_bytes_(max_event_bytes), on_event_(std::move(on_event)) {}

    // Reads one piece of the stream; false once an event went over the limit (then and after).
    bool feed(std::string_view piece);

    bool oversized() const { return oversized_; }
    // The last `id:` seen (what a resumption sends as Last-Event-ID), and the last `retry:` in ms.
    const std::string& last_event_id() const { return last_event_id_; }
    std::optional<std::uint64_t> retry_ms() const { return retry_ms_; }

private:
    void on_line(std::string_view line);
    void dispatch();

    const std::size_t max_event_bytes_;
    EventHandler on_event_;
    std::string line_;
    bool after_cr_ = false;  // the last byte was a CR: a following LF ends nothing more
    bool oversized_ = false;
    std::string data_;
    bool has_data_ = false;
    std::string event_;
    std::string last_event_id_;
    std::optional<std::uint64_t> retry_ms_;
};

}  // namespace skillhost::upstream
