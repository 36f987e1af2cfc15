#include "plugin/runner_protocol.hpp"
#include "plugin/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <limits>

namespace skillhost::plugin::wire {

PayloadWriter& PayloadWriter::text(std::string_view value) {
    const auto size = static_cast<std::uint32_t>(value.size());
    bytes_.append(reinterpret_cast<const char*>(&size), sizeof size);
    bytes_.append(value);
    return *this;
}

PayloadWriter& PayloadWriter::integer(std::int64_t value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
}

PayloadWriter& PayloadWriter::real(double value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
}

std::string_view PayloadReader::take(std::size_t size) {
    if (!ok_ || rest_.size() < size) {
        ok_ = false;
        return {};
    }
    std::string_view out = rest_.substr(0, size);
    rest_.remove_prefix(size);
    return out;
}

std::string_view PayloadReader::text() {
    std::uint32_t size = 0;
    const std::string_view raw = take(sizeof size);
    if (!ok_) return {};
    std::memcpy(&size, raw.data(), sizeof size);
    return take(size);
}

std::int64_t PayloadReader::integer() {
    std::int64_t value = 0;
    const std::string_view raw = take(sizeof value);
    if (ok_) std::memcpy(&value, raw.data(), sizeof value);
    return value;
}

double PayloadReader::real() {
    double value = 0;
    const std::string_view raw = take(sizeof value);
    if (ok_) std::memcpy(&value, raw.data(), sizeof value);
    return value;
}

bool write_frame(int fd, FrameType type, std::uint64_t id, std::string_view payload) {
    if (payload.size() > std::numeric_limits<std::uint32_t>::max()) return false;
    FrameHeader header{static_cast<std::uint32_t>(payload.size()), static_cast<std::uint16_t>(type), 0, id};
    iovec parts[2] = {{&header, sizeof header}, {const_cast<char*>(payload.data()), payload.size()}};
    int count = payload.empty() ? 1 : 2;
    iovec* next = parts;
    while (count > 0) {
        msghdr message{};
        message.msg_iov = next;
        message.msg_iovlen = static_cast<std::size_t>(count);
        // MSG_NOSIGNAL: a runner that died must not take the host down with SIGPIPE.
        const ssize_t written = ::sendmsg(fd, &message, MSG_NOSIGNAL);
        if (written < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        auto left = static_cast<std::size_t>(written);
        while (count > 0 && left >= next->iov_len) {
            left -= next->iov_len;
            ++next;
            --count;
        }
        if (count > 0) {
            next->iov_base = static_cast<char*>(next->iov_base) + left;
            next->iov_len -= left;
        }
    }
    return true;
}

namespace {

// 1: all read; 0: closed before the first byte; -1: error or closed midway.
int read_exactly(int fd, char* into, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t got = ::read(fd, into + done, size - done);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (got == 0) return done == 0 ? 0 : -1;
        done += static_cast<std::size_t>(got);
    }
    return 1;
}

}  // namespace

ReadStatus read_frame(int fd, std::size_t max_payload, Frame& out) {
    const int header = read_exactly(fd, reinterpret_cast<char*>(&out.header), sizeof out.header);
    if (header == 0) return ReadStatus::closed;
    if (header < 0) return ReadStatus::broken;
    if (out.header.size > max_payload) return ReadStatus::too_large;
    out.payload.resize(out.header.size);
    if (out.header.size > 0 && read_exactly(fd, out.payload.data(), out.payload.size()) != 1) return ReadStatus::broken;
    return ReadStatus::frame;
}

namespace {

// Frames are read into a buffer of at least this size; a larger frame grows it for that frame.
constexpr std::size_t read_chunk = 64 * 1024;

}  // namespace

bool FrameReader::has_frame() const {
    if (end_ - begin_ < sizeof(FrameHeader)) return false;
    FrameHeader header;
    std::memcpy(&header, buffer_.data() + begin_, sizeof header);
    return header.size > max_payload_ || end_ - begin_ >= sizeof header + header.size;
}

ReadStatus FrameReader::read(int fd, Frame& out) {
    for (;;) {
        const std::size_t have = end_ - begin_;
        std::size_t want = sizeof(FrameHeader);
        if (have >= sizeof(FrameHeader)) {
            std::memcpy(&out.header, buffer_.data() + begin_, sizeof out.header);
            if (out.header.size > max_payload_) return ReadStatus::too_large;
            want += out.header.size;
            if (have >= want) {
                out.payload.assign(buffer_.data() + begin_ + sizeof(FrameHeader), out.header.size);
                begin_ += want;
                if (begin_ == end_) {
                    begin_ = end_ = 0;
                    // Give back what one huge frame took.
                    if (buffer_.size() > 4 * read_chunk) std::string().swap(buffer_);
                }
                return ReadStatus::frame;
            }
        }
        // Make room for the whole frame after the bytes already here.
        if (begin_ > 0) {
            std::memmove(buffer_.data(), buffer_.data() + begin_, have);
            begin_ = 0;
            end_ = have;
        }
        if (buffer_.size() < std::max(want, read_chunk)) buffer_.resize(std::max(want, read_chunk));
        const ssize_t got = ::read(fd, buffer_.data() + end_, buffer_.size() - end_);
        if (got < 0) {
            if (errno == EINTR) continue;
            return ReadStatus::broken;
        }
        if (got == 0) return have == 0 ? ReadStatus::closed : ReadStatus::broken;
        end_ += static_cast<std::size_t>(got);
    }
}

std::string encode(const CallFrame& frame) {
    const Call& c = frame.call;
    PayloadWriter w;
    w.text(c.skill_id).text(c.call_id).text(c.user_id).text(c.cognitive_mode).text(c.data_dir.native());
    w.text(c.workspace_root.native()).integer(c.deadline_unix_ms).text(frame.args_json).integer(frame.flags);
    w.text(c.idempotency_key);
    return std::move(w.bytes());
}

std::optional<CallFrame> decode_call(std::string_view payload) {
    PayloadReader r(payload);
    CallFrame out;
    Call& c = out.call;
    c.skill_id = r.text();
    c.call_id = r.text();
    c.user_id = r.text();
    c.cognitive_mode = r.text();
    c.data_dir = std::string(r.text());
    c.data_dir_ready = true;
    c.workspace_root = std::string(r.text());
    c.deadline_unix_ms = r.integer();
    out.args_json = r.text();
    out.flags = r.integer();
    c.idempotency_key = r.text();
    if (!r.ok()) return std::nullopt;
    return out;
}

std::string encode(const ExtensionCall& request) {
    std::string out = encode(request.call);
    PayloadWriter w;
    w.integer(static_cast<std::int64_t>(request.kind)).integer(request.request).text(request.name).text(request.json);
    w.integer(request.max_bytes);
    // The call context's length first, so the call's own decoder reads exactly its part.
    PayloadWriter framed;
    framed.text(out);
    return std::move(framed.bytes()) + w.bytes();
}

std::optional<ExtensionCall> decode_extension_call(std::string_view payload) {
    PayloadReader r(payload);
    const std::string_view call_part = r.text();
    if (!r.ok()) return std::nullopt;
    std::optional<CallFrame> call = decode_call(call_part);
    ExtensionCall out;
    const std::int64_t kind = r.integer();
    out.request = r.integer();
    out.name = r.text();
    out.json = r.text();
    out.max_bytes = r.integer();
    if (!call || !r.ok()) return std::nullopt;
    out.call = std::move(*call);
    if (kind == static_cast<std::int64_t>(ExtensionKind::resources)) {
        if (out.request < static_cast<std::int64_t>(ResourceRequest::list) ||
            out.request > static_cast<std::int64_t>(ResourceRequest::read))
            return std::nullopt;
    } else if (kind == static_cast<std::int64_t>(ExtensionKind::prompts)) {
        if (out.request < static_cast<std::int64_t>(PromptRequest::list) ||
            out.request > static_cast<std::int64_t>(PromptRequest::complete))
            return std::nullopt;
    } else {
        return std::nullopt;
    }
    out.kind = static_cast<ExtensionKind>(kind);
    if (out.max_bytes <= 0 || static_cast<std::uint64_t>(out.max_bytes) > max_extension_answer_bytes)
        return std::nullopt;
    return out;
}

std::string encode(const HostRequest& request) {
    PayloadWriter w;
    w.integer(static_cast<std::int64_t>(request.call_sequence)).text(request.kind).text(request.body);
    return std::move(w.bytes());
}

std::optional<HostRequest> decode_host_request(std::string_view payload) {
    PayloadReader r(payload);
    HostRequest out;
    out.call_sequence = static_cast<std::uint64_t>(r.integer());
    out.kind = r.text();
    out.body = r.text();
    if (!r.ok()) return std::nullopt;
    return out;
}

std::string encode(const RawOutcome& o) {
    PayloadWriter w;
    w.integer(o.status).integer(static_cast<std::int64_t>(o.written)).text(o.result_json);
    w.text(o.error_code).text(o.error_message).text(o.error_details_json).integer(o.extra_writes);
    return std::move(w.bytes());
}

std::optional<RawOutcome> decode_outcome(std::string_view payload) {
    PayloadReader r(payload);
    RawOutcome out;
    out.status = static_cast<skillhost_status>(r.integer());
    const std::int64_t written = r.integer();
    out.result_json = r.text();
    out.error_code = r.text();
    out.error_message = r.text();
    out.error_details_json = r.text();
    out.extra_writes = static_cast<int>(r.integer());
    if (!r.ok() || written < 0 || written > 2) return std::nullopt;
    out.written = static_cast<RawOutcome::Written>(written);
    return out;
}

std::string encode(const Error& error) {
    PayloadWriter w;
    w.text(error.code).text(error.message).text(boost::json::serialize(error.details)).text(to_string(error.kind()));
    return std::move(w.bytes());
}

Error decode_error(std::string_view payload) {
    PayloadReader r(payload);
    // The runner is the same build as the host: its codes are catalogued, and it sends their kind.
    const std::string code(r.text());
    std::string message(r.text());
    const std::string_view details = r.text();
    const auto kind = error_kind_from_string(r.text());
    if (!r.ok() || code.empty() || !kind)
        return Error{errors::kRunnerProtocolError, "the plugin runner sent an unreadable load failure"};
    Error error = Error::reported(code, *kind, std::move(message));
    std::error_code ec;
    boost::json::value parsed = boost::json::parse(details, ec);
    if (!ec && parsed.is_object()) error.details = std::move(parsed.get_object());
    return error;
}

std::string encode(const ReadyInfo& info) {
    PayloadWriter w;
    w.text(info.version).integer(info.abi_major).integer(info.abi_minor).integer(info.has_info ? 1 : 0);
    w.text(info.description).text(info.homepage).text(info.sandbox_json);
    const PublishedExtensions& p = info.published;
    const auto flags = [](std::initializer_list<bool> bits) {
        std::int64_t out = 0, bit = 1;
        for (bool b : bits) {
            if (b) out |= bit;
            bit <<= 1;
        }
        return out;
    };
    w.integer(flags({p.resources, p.resources_list, p.resources_list_templates, p.resources_read}));
    w.text(p.resources_governing_skill).text(p.uri_prefix);
    w.integer(flags({p.prompts, p.prompts_list, p.prompts_get, p.prompts_complete})).text(p.prompts_governing_skill);
    return std::move(w.bytes());
}

std::optional<ReadyInfo> decode_ready(std::string_view payload) {
    PayloadReader r(payload);
    ReadyInfo info;
    info.version = r.text();
    info.abi_major = static_cast<std::uint32_t>(r.integer());
    info.abi_minor = static_cast<std::uint32_t>(r.integer());
    info.has_info = r.integer() != 0;
    info.description = r.text();
    info.homepage = r.text();
    info.sandbox_json = r.text();
    PublishedExtensions& p = info.published;
    const std::int64_t resources = r.integer();
    p.resources_governing_skill = r.text();
    p.uri_prefix = r.text();
    const std::int64_t prompts = r.integer();
    p.prompts_governing_skill = r.text();
    if (!r.ok()) return std::nullopt;
    p.resources = resources & 1;
    p.resources_list = resources & 2;
    p.resources_list_templates = resources & 4;
    p.resources_read = resources & 8;
    p.prompts = prompts & 1;
    p.prompts_list = prompts & 2;
    p.prompts_get = prompts & 4;
    p.prompts_complete = prompts & 8;
    return info;
}

}  // namespace skillhost::plugin::wire
