// A fake skillhost-runner for the tests: it speaks the wire like the real one but answers plugin
// extension requests (resources, prompts) the way a compromised runner might. What it does is read
// from the file `runner-mode` beside the manifest the host passes (--manifest), one word:
//   garbage       a RESULT frame whose payload is not an encoded outcome
//   bad_written   an outcome whose `written` field is out of range
//   oversized     a RESULT frame of 9 MiB (the limit of an extension answer is 8 MiB)
//   huge_header   a frame header announcing 2 GiB, then nothing
//   exit          the process exits (status 3) on receiving the request
//   long_names    a ready frame whose resources extension has a 2000-byte governing skill
//   host_requests during a skill call, host requests no real runner sends (unknown extensions, one
//                 answered where the plugin runs, a call that is not in flight, unreadable
//                 bodies and payloads); the call's result maps each to the error code the host
//                 answered (or its result)
// Other skill calls are answered {"ok":true}. Never started by anything but these tests.
#include "plugin/runner_protocol.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace {

using namespace skillhost::plugin;
using wire::FrameType;

constexpr int host_fd = 3;

std::string mode_beside(const std::string& manifest) {
    const std::string dir = manifest.substr(0, manifest.rfind('/'));
    std::ifstream file(dir + "/runner-mode");
    std::string mode;
    file >> mode;
    return mode;
}

// Sends one host request per entry (named by its index) for call `call`, then reads until each is
// answered; returns {"name": "<error code>" or "result:<json>", ...} as JSON text.
std::string ask_badly(wire::FrameReader& frames, std::uint64_t call) {
    struct Ask {
        const char* name;
        std::uint64_t call;
        const char* kind;
        std::string body;
        bool garbage = false;  // the payload is not a host request at all
    };
    wire::PayloadWriter unreadable_llm;
    unreadable_llm.text("persona");  // the request text is missing
    wire::PayloadWriter storage_get;
    storage_get.text("get").text(R"({"collection":"c","key":"k"})");
    const Ask asks[] = {
        {"unknown_extension", call, "skillhost.nonexistent/1", "{}"},
        {"answered_in_the_runner", call, SKILLHOST_EXT_CONTENT, R"({"type":"text","text":"x"})"},
        {"call_not_in_flight", call + 1000, SKILLHOST_EXT_STORAGE, storage_get.bytes()},
        {"outside_any_call", 0, SKILLHOST_EXT_STORAGE, storage_get.bytes()},
        {"unreadable_body", call, SKILLHOST_EXT_LLM, unreadable_llm.bytes()},
        {"unreadable_request", call, "", "", true},
        {"path_without_rules", call, SKILLHOST_EXT_PATH_CHECK, "/etc/shadow"},
    };
    constexpr std::size_t count = sizeof(asks) / sizeof(asks[0]);
    for (std::size_t i = 0; i < count; ++i) {
        const Ask& a = asks[i];
        const std::string payload =
            a.garbage ? std::string("\x01") : wire::encode(wire::HostRequest{a.call, a.kind, a.body});
        wire::write_frame(host_fd, FrameType::host_request, i + 1, payload);
    }
    std::string answers[count];
    std::size_t answered = 0;
    wire::Frame frame;
    while (answered < count && frames.read(host_fd, frame) == wire::ReadStatus::frame) {
        if (static_cast<FrameType>(frame.header.type) != FrameType::host_reply) continue;
        const std::uint64_t index = frame.header.id - 1;
        if (index >= count || !answers[index].empty()) continue;
        const std::optional<RawOutcome> outcome = wire::decode_outcome(frame.payload);
        answers[index] = !outcome                                          ? "unreadable"
                         : outcome->written == RawOutcome::Written::result ? "result:" + outcome->result_json
                                                                           : outcome->error_code;
        ++answered;
    }
    std::string json = "{";
    for (std::size_t i = 0; i < count; ++i) {
        std::string escaped;
        for (char c : answers[i]) escaped += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
        json += std::string(i ? "," : "") + "\"" + asks[i].name + "\":\"" + escaped + "\"";
    }
    return json + "}";
}

RawOutcome ok_outcome() {
    RawOutcome out;
    out.status = SKILLHOST_STATUS_OK;
    out.written = RawOutcome::Written::result;
    out.result_json = R"({"ok":true})";
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::string manifest;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--manifest") manifest = argv[i + 1];
    const std::string mode = mode_beside(manifest);

    wire::ReadyInfo ready;
    ready.version = "1.0.0";
    ready.abi_major = 1;
    ready.abi_minor = 1;
    ready.sandbox_json = "{}";
    wire::PublishedExtensions& p = ready.published;
    p.resources = p.resources_list = p.resources_list_templates = p.resources_read = true;
    p.resources_governing_skill = mode == "long_names" ? std::string(2000, 'g') : "ok";
    p.uri_prefix = "hostile://";
    p.prompts = p.prompts_list = p.prompts_get = p.prompts_complete = true;
    p.prompts_governing_skill = "ok";
    wire::write_frame(host_fd, FrameType::ready, 0, wire::encode(ready));

    wire::FrameReader frames(std::size_t{64} << 20);
    wire::Frame frame;
    while (frames.read(host_fd, frame) == wire::ReadStatus::frame) {
        const auto type = static_cast<FrameType>(frame.header.type);
        const std::uint64_t id = frame.header.id;
        if (type == FrameType::call) {
            RawOutcome out = ok_outcome();
            if (mode == "host_requests") out.result_json = ask_badly(frames, id);
            wire::write_frame(host_fd, FrameType::result, id, wire::encode(out));
            continue;
        }
        if (type != FrameType::extension_call) continue;
        if (mode == "garbage") {
            wire::write_frame(host_fd, FrameType::result, id, "not an outcome");
        } else if (mode == "bad_written") {
            wire::PayloadWriter w;
            w.integer(SKILLHOST_STATUS_OK).integer(7).text("{}").text("").text("").text("").integer(0);
            wire::write_frame(host_fd, FrameType::result, id, w.bytes());
        } else if (mode == "oversized") {
            RawOutcome out = ok_outcome();
            out.result_json = '"' + std::string(std::size_t{9} << 20, 'a') + '"';
            wire::write_frame(host_fd, FrameType::result, id, wire::encode(out));
        } else if (mode == "huge_header") {
            wire::FrameHeader header{0x80000000u, static_cast<std::uint16_t>(FrameType::result), 0, id};
            [[maybe_unused]] const ssize_t written = ::write(host_fd, &header, sizeof header);
        } else if (mode == "exit") {
            std::_Exit(3);
        } else {
            wire::write_frame(host_fd, FrameType::result, id, wire::encode(ok_outcome()));
        }
    }
    return 0;
}
