// The runner wire format: frames and payloads round-trip, and hostile input is bounded.
#include "plugin/runner_protocol.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

namespace skillhost::plugin::wire {
namespace {

struct SocketPair {
    int fds[2];
    SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0); }
    ~SocketPair() {
        ::close(fds[0]);
        ::close(fds[1]);
    }
};

// A frame of the call `skill_id`, its arguments and flags, every other field set.
CallFrame frame_of(std::string skill_id, std::string call_id, std::int64_t deadline, std::string args,
                   std::int64_t flags, std::string key) {
    CallFrame frame;
    frame.call.skill_id = std::move(skill_id);
    frame.call.call_id = std::move(call_id);
    frame.call.user_id = "alice";
    frame.call.cognitive_mode = "agent";
    frame.call.data_dir = "/data";
    frame.call.workspace_root = "/ws";
    frame.call.deadline_unix_ms = deadline;
    frame.call.idempotency_key = std::move(key);
    frame.call.run_id = "run-stays-on-the-host";
    frame.args_json = std::move(args);
    frame.flags = flags;
    return frame;
}

TEST(RunnerWire, CallAndOutcomeRoundTripThroughASocket) {
    SocketPair pair;
    const CallFrame request = frame_of("echo", "call-7", 1234, R"({"text":"hi"})", 0, "run-1:2");
    ASSERT_TRUE(write_frame(pair.fds[0], FrameType::call, 7, encode(request)));
    Frame frame;
    ASSERT_EQ(read_frame(pair.fds[1], 1 << 20, frame), ReadStatus::frame);
    EXPECT_EQ(frame.header.id, 7u);
    EXPECT_EQ(frame.header.type, static_cast<std::uint16_t>(FrameType::call));
    auto decoded = decode_call(frame.payload);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->call.skill_id, "echo");
    EXPECT_EQ(decoded->call.call_id, "call-7");
    EXPECT_EQ(decoded->call.user_id, "alice");
    EXPECT_EQ(decoded->call.cognitive_mode, "agent");
    EXPECT_EQ(decoded->call.data_dir, "/data");
    EXPECT_TRUE(decoded->call.data_dir_ready);
    EXPECT_EQ(decoded->call.workspace_root, "/ws");
    EXPECT_EQ(decoded->call.deadline_unix_ms, 1234);
    EXPECT_EQ(decoded->call.idempotency_key, "run-1:2");
    EXPECT_EQ(decoded->call.run_id, "") << "the run is the host's to know";
    EXPECT_EQ(decoded->call.control, nullptr);
    EXPECT_EQ(decoded->args_json, R"({"text":"hi"})");

    RawOutcome outcome;
    outcome.status = SKILLHOST_STATUS_ERROR;
    outcome.written = RawOutcome::Written::error;
    outcome.error_code = "X";
    outcome.error_message = "m";
    outcome.extra_writes = 2;
    auto back = decode_outcome(encode(outcome));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->written, RawOutcome::Written::error);
    EXPECT_EQ(back->error_code, "X");
    EXPECT_EQ(back->extra_writes, 2);
}

TEST(RunnerWire, OversizedFrameIsRefusedBeforeItsPayloadIsRead) {
    SocketPair pair;
    ASSERT_TRUE(write_frame(pair.fds[0], FrameType::result, 1, std::string(4096, 'x')));
    Frame frame;
    EXPECT_EQ(read_frame(pair.fds[1], 1024, frame), ReadStatus::too_large);
    EXPECT_TRUE(frame.payload.empty());
}

TEST(RunnerWire, TruncatedPayloadsDecodeAsNothing) {
    const std::string full = encode(frame_of("a", "b", 1, "{}", 0, "k"));
    for (std::size_t cut = 0; cut < full.size(); ++cut)
        EXPECT_FALSE(decode_call(std::string_view(full).substr(0, cut))) << cut;
    // A length field claiming more than is there.
    std::string lying = full;
    lying[0] = '\xff';
    lying[1] = '\xff';
    EXPECT_FALSE(decode_call(lying));
    EXPECT_FALSE(decode_outcome("short"));
}

TEST(RunnerWire, HostRequestsRoundTripAndRefuseTruncation) {
    const std::string full = encode(HostRequest{42, "skillhost.path_check/1", "/ws/a"});
    auto back = decode_host_request(full);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->call_sequence, 42u);
    EXPECT_EQ(back->kind, "skillhost.path_check/1");
    EXPECT_EQ(back->body, "/ws/a");
    for (std::size_t cut = 0; cut < full.size(); ++cut)
        EXPECT_FALSE(decode_host_request(std::string_view(full).substr(0, cut))) << cut;
}

TEST(RunnerWire, ExtensionCallsRoundTripAndRefuseTruncationUnknownRequestsAndBadLimits) {
    ExtensionCall call;
    call.call = frame_of("note_read", "prompt-3", 99, "", 1, "k");
    call.kind = ExtensionKind::prompts;
    call.request = static_cast<std::int64_t>(PromptRequest::get);
    call.name = "summarise";
    call.json = R"({"file":"a.md"})";
    call.max_bytes = 1 << 20;
    const std::string full = encode(call);
    auto back = decode_extension_call(full);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->call.call.skill_id, "note_read");
    EXPECT_EQ(back->call.call.deadline_unix_ms, 99);
    EXPECT_EQ(back->call.flags, 1);
    EXPECT_EQ(back->kind, ExtensionKind::prompts);
    EXPECT_EQ(back->request, static_cast<std::int64_t>(PromptRequest::get));
    EXPECT_EQ(back->name, "summarise");
    EXPECT_EQ(back->json, R"({"file":"a.md"})");
    EXPECT_EQ(back->max_bytes, 1 << 20);
    for (std::size_t cut = 0; cut < full.size(); ++cut)
        EXPECT_FALSE(decode_extension_call(std::string_view(full).substr(0, cut))) << cut;

    auto refused = [&](auto change) {
        ExtensionCall bad = call;
        change(bad);
        return !decode_extension_call(encode(bad));
    };
    EXPECT_TRUE(refused([](ExtensionCall& c) { c.kind = static_cast<ExtensionKind>(3); }));
    EXPECT_TRUE(refused([](ExtensionCall& c) { c.request = 3; }));
    EXPECT_TRUE(refused([](ExtensionCall& c) { c.request = -1; }));
    EXPECT_TRUE(refused([](ExtensionCall& c) {
        c.kind = ExtensionKind::resources;
        c.request = 3;
    }));
    EXPECT_TRUE(refused([](ExtensionCall& c) { c.max_bytes = 0; }));
    EXPECT_TRUE(refused([](ExtensionCall& c) { c.max_bytes = -5; }));
    EXPECT_TRUE(refused([](ExtensionCall& c) { c.max_bytes = max_extension_answer_bytes + 1; }));
    // A plain call payload is not an extension call.
    EXPECT_FALSE(decode_extension_call(encode(call.call)));
}

TEST(RunnerWire, TheReadyMessageCarriesThePublishedExtensions) {
    ReadyInfo info;
    info.version = "2.0.0";
    info.sandbox_json = "{}";
    PublishedExtensions& p = info.published;
    p.resources = p.resources_read = true;
    p.resources_governing_skill = "note_read";
    p.uri_prefix = "notes://";
    p.prompts = p.prompts_get = p.prompts_complete = true;
    p.prompts_governing_skill = "note_write";
    const std::string full = encode(info);
    auto back = decode_ready(full);
    ASSERT_TRUE(back);
    const PublishedExtensions& q = back->published;
    EXPECT_TRUE(q.resources && q.resources_read && !q.resources_list && !q.resources_list_templates);
    EXPECT_EQ(q.resources_governing_skill, "note_read");
    EXPECT_EQ(q.uri_prefix, "notes://");
    EXPECT_TRUE(q.prompts && q.prompts_get && q.prompts_complete && !q.prompts_list);
    EXPECT_EQ(q.prompts_governing_skill, "note_write");
    for (std::size_t cut = 0; cut < full.size(); ++cut)
        EXPECT_FALSE(decode_ready(std::string_view(full).substr(0, cut))) << cut;
}

TEST(RunnerWire, TheBufferedReaderSplitsFramesThatArriveTogetherAndJoinsSplitOnes) {
    SocketPair pair;
    ASSERT_TRUE(write_frame(pair.fds[0], FrameType::log, 1, "first"));
    ASSERT_TRUE(write_frame(pair.fds[0], FrameType::result, 2, std::string(100000, 'x')));
    ASSERT_TRUE(write_frame(pair.fds[0], FrameType::idle, 0, {}));
    FrameReader reader(1 << 20);
    Frame frame;
    ASSERT_EQ(reader.read(pair.fds[1], frame), ReadStatus::frame);
    EXPECT_EQ(frame.payload, "first");
    ASSERT_EQ(reader.read(pair.fds[1], frame), ReadStatus::frame);
    EXPECT_EQ(frame.header.id, 2u);
    EXPECT_EQ(frame.payload.size(), 100000u);
    ASSERT_EQ(reader.read(pair.fds[1], frame), ReadStatus::frame);
    EXPECT_EQ(frame.header.type, static_cast<std::uint16_t>(FrameType::idle));
    EXPECT_FALSE(reader.has_frame());
    ::shutdown(pair.fds[0], SHUT_WR);
    EXPECT_EQ(reader.read(pair.fds[1], frame), ReadStatus::closed);
}

TEST(RunnerWire, TheBufferedReaderRefusesAnOversizedFrameFromItsHeader) {
    SocketPair pair;
    ASSERT_TRUE(write_frame(pair.fds[0], FrameType::result, 1, std::string(4096, 'x')));
    FrameReader reader(1024);
    Frame frame;
    EXPECT_EQ(reader.read(pair.fds[1], frame), ReadStatus::too_large);
    EXPECT_EQ(frame.header.size, 4096u);
}

TEST(RunnerWire, PeerClosingMidFrameIsBrokenNotAFrame) {
    SocketPair pair;
    FrameHeader header{100, static_cast<std::uint16_t>(FrameType::result), 0, 1};
    ASSERT_EQ(::write(pair.fds[0], &header, sizeof header), static_cast<ssize_t>(sizeof header));
    ASSERT_EQ(::write(pair.fds[0], "abc", 3), 3);
    ::shutdown(pair.fds[0], SHUT_WR);
    Frame frame;
    EXPECT_EQ(read_frame(pair.fds[1], 1024, frame), ReadStatus::broken);
    FrameHeader again{100, static_cast<std::uint16_t>(FrameType::result), 0, 1};
    SocketPair second;
    ASSERT_EQ(::write(second.fds[0], &again, sizeof again), static_cast<ssize_t>(sizeof again));
    ::shutdown(second.fds[0], SHUT_WR);
    FrameReader reader(1024);
    EXPECT_EQ(reader.read(second.fds[1], frame), ReadStatus::broken);
}

}  // namespace
}  // namespace skillhost::plugin::wire
