// The wire format between the host and a plugin runner: length-prefixed frames over a stream
// socket. One CALL frame out and one RESULT frame back per call; progress, cancellation, log lines
// and LLM completions travel as frames tagged with the same call id. Every size is bounded.
#pragma once

#include "plugin/loaded_plugin.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::plugin::wire {

enum class FrameType : std::uint16_t {
    // host -> runner
    call = 1,              // id: call sequence; CallRequest
    cancel = 2,            // id: call sequence; empty
    completion_reply = 3,  // id: completion request id; an encoded RawOutcome
    // runner -> host
    ready = 10,               // id 0; ReadyInfo
    load_failed = 11,         // id 0; an encoded Error
    result = 12,              // id: call sequence; an encoded RawOutcome
    progress = 13,            // id: call sequence; progress, total, message
    completion_request = 14,  // id: completion request id; call sequence, user, role, request
    log = 15,                 // id 0; level, message
    idle = 16,                // id 0; the runner has been idle and would like to exit
    // What the front end serves for one call (content, logs, sampling, elicitation). Requests are
    // answered with completion_reply, their ids drawn from the completion requests' counter.
    content = 40,                  // id: call sequence; the call's content items as one JSON array
    call_log = 41,                 // id: call sequence; level, message (a log line written on the call's thread)
    call_completion_request = 42,  // id: request id; call sequence, user, role, request
    elicit_request = 43,           // id: request id; call sequence, request
};

struct FrameHeader {
    std::uint32_t size = 0;  // payload bytes after the header
    std::uint16_t type = 0;
    std::uint16_t reserved = 0;
    std::uint64_t id = 0;
};
static_assert(sizeof(FrameHeader) == 16);

// Appends typed fields to a payload: strings as u32 length + bytes, numbers as 8 bytes.
class PayloadWriter {
public:
    PayloadWriter& text(std::string_view value);
    PayloadWriter& integer(std::int64_t value);
    PayloadWriter& real(double value);
    std::string& bytes() { return bytes_; }

private:
    std::string bytes_;
};

// Reads the fields back; every read is bounds-checked and turns ok() false on a short payload.
class PayloadReader {
public:
    explicit PayloadReader(std::string_view bytes) : rest_(bytes) {}
    std::string_view text();
    std::int64_t integer();
    double real();
    bool ok() const { return ok_; }

private:
    std::string_view take(std::size_t size);
    std::string_view rest_;
    bool ok_ = true;
};

// Writes one frame completely (retrying short writes and EINTR). False when the peer is gone.
bool write_frame(int fd, FrameType type, std::uint64_t id, std::string_view payload);

struct Frame {
    FrameHeader header;
    std::string payload;
};

enum class ReadStatus { frame, closed, too_large, broken };

// Reads one whole frame. `too_large` when the header announces more than max_payload bytes (the
// stream cannot be resynchronised after that: the caller drops the connection).
ReadStatus read_frame(int fd, std::size_t max_payload, Frame& out);

// The fields of a CALL frame.
struct CallRequest {
    std::string skill_id, call_id, user_id, cognitive_mode, data_dir, workspace_root;
    std::int64_t deadline_unix_ms = 0;
    std::string args_json;
};
std::string encode(const CallRequest& request);
std::optional<CallRequest> decode_call(std::string_view payload);

std::string encode(const RawOutcome& outcome);
std::optional<RawOutcome> decode_outcome(std::string_view payload);

std::string encode(const Error& error);
Error decode_error(std::string_view payload);

// What the runner says once the plugin is loaded and initialised.
struct ReadyInfo {
    std::string version;
    std::uint32_t abi_major = 0, abi_minor = 0;
    bool has_info = false;  // the plugin offers skillhost.plugin_info/1
    std::string description, homepage;
    std::string sandbox_json;  // what the sandbox enforces, as a JSON object
};
std::string encode(const ReadyInfo& info);
std::optional<ReadyInfo> decode_ready(std::string_view payload);

}  // namespace skillhost::plugin::wire
