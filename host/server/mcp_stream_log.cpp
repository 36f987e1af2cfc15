#include "server/mcp_stream_log.hpp"
#include "server/error_codes.hpp"

#include <charconv>

namespace skillhost::server {

namespace {

std::string event_id(std::uint64_t stream, std::uint64_t seq) {
    return std::to_string(stream) + "-" + std::to_string(seq);
}

bool parse_number(std::string_view text, std::uint64_t& out) {
    if (text.empty() || text.size() > 20) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

Error events_gone(std::string_view id, std::string_view why) {
    return Error{errors::kMcpEventsGone,
                 "cannot resume after event " + std::string(id) + ": " + std::string(why),
                 {{"last_event_id", std::string(id)}},
                 {"send the request again (its answer is not kept any more)",
                  "open the server stream with GET without Last-Event-ID"}};
}

}  // namespace

std::uint64_t McpStreamLog::open(std::shared_ptr<EventChannel> channel, bool prime) {
    const std::uint64_t number = next_stream_++;
    Stream& s = streams_[number];
    s.channel = std::move(channel);
    // Named, so clients that parse the data of every `message` event (the default name) as JSON-RPC
    // skip it; with an empty data line, so SSE parsers still dispatch it and record its id.
    if (prime) s.channel->push(StreamEvent{"priming", "", event_id(number, 0), limits_.retry});
    return number;
}

std::uint64_t McpStreamLog::stream_of(std::string_view event_id) {
    const auto dash = event_id.find('-');
    std::uint64_t number = 0;
    if (dash == std::string_view::npos || !parse_number(event_id.substr(0, dash), number)) return 0;
    return number;
}

void McpStreamLog::push(std::uint64_t stream, std::string_view name, const std::string& data, bool last) {
    auto it = streams_.find(stream);
    if (it == streams_.end() || it->second.finished) return;
    Stream& s = it->second;
    const std::uint64_t seq = s.next_seq++;
    StreamEvent event{std::string(name), data, event_id(stream, seq), {}};
    if (s.channel) s.channel->push(event);
    s.bytes += data.size();
    s.events.emplace_back(seq, std::move(event));
    while (!s.events.empty() && (s.events.size() > limits_.events_per_stream || s.bytes > limits_.bytes_per_stream)) {
        s.bytes -= s.events.front().second.data.size();
        s.dropped_through = s.events.front().first;
        s.events.pop_front();
    }
    if (last) finish(stream);
}

void McpStreamLog::finish(std::uint64_t stream) {
    auto it = streams_.find(stream);
    if (it == streams_.end() || it->second.finished) return;
    it->second.finished = true;
    if (it->second.channel) it->second.channel->close();
    it->second.channel.reset();
    forget_old_finished();
}

void McpStreamLog::finish_all() {
    for (auto& [number, s] : streams_) {
        s.finished = true;
        if (s.channel) s.channel->close();
        s.channel.reset();
    }
    forget_old_finished();
}

void McpStreamLog::forget_old_finished() {
    std::size_t finished = 0;
    for (const auto& [number, s] : streams_) finished += s.finished ? 1 : 0;
    // Oldest first: streams_ is ordered by number.
    for (auto it = streams_.begin(); it != streams_.end() && finished > limits_.finished_streams;) {
        if (it->second.finished) {
            it = streams_.erase(it);
            --finished;
        } else {
            ++it;
        }
    }
}

Result<std::uint64_t> McpStreamLog::resume(std::string_view last_event_id, std::shared_ptr<EventChannel> channel) {
    const auto dash = last_event_id.find('-');
    std::uint64_t number = 0;
    std::uint64_t seq = 0;
    if (dash == std::string_view::npos || !parse_number(last_event_id.substr(0, dash), number) ||
        !parse_number(last_event_id.substr(dash + 1), seq)) {
        return Error{errors::kMcpBadEventId,
                     "Last-Event-ID '" + std::string(last_event_id.substr(0, 64)) +
                         "' is not an event id of this server (they look like 3-17)",
                     {},
                     {"send the id of the last event you received, or leave the header out"}};
    }
    auto it = streams_.find(number);
    if (it == streams_.end()) return events_gone(last_event_id, "the stream's events are no longer kept");
    Stream& s = it->second;
    if (seq >= s.next_seq) return events_gone(last_event_id, "the stream never sent that event");
    if (seq < s.dropped_through)
        return events_gone(last_event_id, "events after it were dropped (a stream keeps its last " +
                                              std::to_string(limits_.events_per_stream) + ")");
    // The connection that carried the stream is gone or about to go: its channel ends here.
    if (s.channel) s.channel->close();
    for (const auto& [n, event] : s.events)
        if (n > seq) channel->push(event);
    if (s.finished) {
        channel->close();
    } else {
        s.channel = std::move(channel);
    }
    return number;
}

}  // namespace skillhost::server
