// The wire format between the host and a plugin runner: length-prefixed frames over a stream
// socket. One CALL frame out and one RESULT frame back per call; progress, cancellation and log
// lines travel as frames tagged with the same call id. Every request of a host extension the host
// answers (plugin/extensions/: completions, questions, storage, path checks) is one HOST_REQUEST
// frame naming the extension id with the module's own encoding of the arguments, answered by one
// HOST_REPLY: a new extension adds neither a frame type nor code on either side of the socket.
// Every size is bounded.
#pragma once

#include "plugin/call.hpp"
#include "plugin/loaded_plugin.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::plugin::wire {

enum class FrameType : std::uint16_t {
    // host -> runner
    call = 1,        // id: call sequence; CallFrame
    cancel = 2,      // id: call sequence; empty
    host_reply = 4,  // id: host request id; an encoded RawOutcome
    // id: call sequence; ExtensionCall: one request of a plugin extension the host reads
    // (resources, prompts), answered by a RESULT frame like a call.
    extension_call = 5,
    // runner -> host
    ready = 10,         // id 0; ReadyInfo
    load_failed = 11,   // id 0; an encoded Error
    result = 12,        // id: call sequence; an encoded RawOutcome
    progress = 13,      // id: call sequence; progress, total, message
    host_request = 17,  // id: host request id; HostRequest
    log = 15,           // id 0; level, message
    idle = 16,          // id 0; the runner has been idle and would like to exit
    // id 0; the pid (host PID namespace) of the sandboxed process. Sent once, first, by the
    // process the host started, before any plugin code runs; later ones are ignored.
    sandboxed = 18,
    // What the front end hears of one running call, one way (what it answers, such as sampling and
    // questions, are host requests of the extension, with the call's sequence).
    content = 40,   // id: call sequence; the call's content items as one JSON array
    call_log = 41,  // id: call sequence; level, message (a log line written on the call's thread)
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

// CallFrame::flags
constexpr std::int64_t call_has_path_rules = 1;  // ask the host per path; without it every path passes

// Reads frames through a buffer, so a frame usually costs one read() instead of two (header, then
// payload) and frames that arrive together cost one. One reader at a time.
class FrameReader {
public:
    explicit FrameReader(std::size_t max_payload) : max_payload_(max_payload) {}
    // Like read_frame(), but takes what an earlier read() brought first.
    ReadStatus read(int fd, Frame& out);
    // A whole frame is already buffered: read() returns it without touching the socket (so do not
    // wait for the socket to become readable first).
    bool has_frame() const;

private:
    const std::size_t max_payload_;
    std::string buffer_;
    std::size_t begin_ = 0, end_ = 0;  // the unread bytes
};

// A CALL frame: the call (plugin/call.hpp; its control, data_dir_ready and run_id stay on the host),
// its arguments and call_has_path_rules.
struct CallFrame {
    Call call;
    std::string args_json;
    std::int64_t flags = 0;
};
std::string encode(const CallFrame& frame);
// nullopt for a truncated payload. The decoded call's data_dir_ready is set (the host made it).
std::optional<CallFrame> decode_call(std::string_view payload);

// A host service the plugin asked for during a call (or outside one: call_sequence 0). `kind` is the
// ABI extension id ("skillhost.path_check/1"); `body` is that extension module's own encoding.
struct HostRequest {
    std::uint64_t call_sequence = 0;
    std::string kind;
    std::string body;
};
std::string encode(const HostRequest& request);
std::optional<HostRequest> decode_host_request(std::string_view payload);

std::string encode(const RawOutcome& outcome);
std::optional<RawOutcome> decode_outcome(std::string_view payload);

std::string encode(const Error& error);
Error decode_error(std::string_view payload);

// Which plugin extension an EXTENSION_CALL runs.
enum class ExtensionKind : std::int64_t { resources = 1, prompts = 2 };

// The largest answer a plugin extension request may ask for (SKILLHOST_PROMPTS_MAX_ANSWER_BYTES,
// and the 8 MiB per answer "skillhost.resources/1" promises): a host asking more is refused by the
// runner, a runner answering more is dropped by the host.
inline constexpr std::size_t max_extension_answer_bytes = std::size_t{8} << 20;

// The fields of an EXTENSION_CALL frame: the call context of `call` (its args_json unused), which
// extension and which of its requests (ResourceRequest or PromptRequest as a number), `name` (the
// URI of a resources read, the prompt of a prompts get), `json` (a prompt's arguments, a
// completion request) and the answer's limit.
struct ExtensionCall {
    CallFrame call;
    ExtensionKind kind = ExtensionKind::resources;
    std::int64_t request = 0;
    std::string name, json;
    std::int64_t max_bytes = 0;
};
std::string encode(const ExtensionCall& request);
// nullopt for a truncated payload, an unknown kind or request, or a limit outside
// 1..max_extension_answer_bytes.
std::optional<ExtensionCall> decode_extension_call(std::string_view payload);

// What the plugin's extension tables say, so the host can offer them for an isolated plugin:
// presence, the static strings, and which functions are set.
struct PublishedExtensions {
    bool resources = false;
    std::string resources_governing_skill, uri_prefix;
    bool resources_list = false, resources_list_templates = false, resources_read = false;
    bool prompts = false;
    std::string prompts_governing_skill;
    bool prompts_list = false, prompts_get = false, prompts_complete = false;
};
// Longest governing skill name and URI prefix a runner may report (longer: the extension is
// treated as not offered).
inline constexpr std::size_t max_governing_skill_bytes = 1024;
inline constexpr std::size_t max_uri_prefix_bytes = 8192;

// What the runner says once the plugin is loaded and initialised.
struct ReadyInfo {
    std::string version;
    std::uint32_t abi_major = 0, abi_minor = 0;
    bool has_info = false;  // the plugin offers skillhost.plugin_info/1
    std::string description, homepage;
    std::string sandbox_json;  // what the sandbox enforces, as a JSON object
    PublishedExtensions published;
};
std::string encode(const ReadyInfo& info);
std::optional<ReadyInfo> decode_ready(std::string_view payload);

}  // namespace skillhost::plugin::wire
