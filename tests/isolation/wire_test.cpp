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

TEST(RunnerWire, CallAndOutcomeRoundTripThroughASocket) {
    SocketPair pair;
    CallRequest request{"echo", "call-7", "alice", "agent", "/data", "/ws", 1234, R"({"text":"hi"})", 0, "run-1:2"};
    ASSERT_TRUE(write_frame(pair.fds[0], FrameType::call, 7, encode(request)));
    Frame frame;
    ASSERT_EQ(read_frame(pair.fds[1], 1 << 20, frame), ReadStatus::frame);
    EXPECT_EQ(frame.header.id, 7u);
    EXPECT_EQ(frame.header.type, static_cast<std::uint16_t>(FrameType::call));
    auto decoded = decode_call(frame.payload);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->skill_id, "echo");
    EXPECT_EQ(decoded->user_id, "alice");
    EXPECT_EQ(decoded->deadline_unix_ms, 1234);
    EXPECT_EQ(decoded->args_json, R"({"text":"hi"})");
    EXPECT_EQ(decoded->idempotency_key, "run-1:2");

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
    const std::string full = encode(CallRequest{"a", "b", "c", "d", "e", "f", 1, "{}", 0, "k"});
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
