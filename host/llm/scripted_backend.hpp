// Replays canned responses from a script, for tests and reproducible demos.
//
// Script entries: {role?, match?, response}. `role` limits an entry to one role, `match` is text
// looked for in the last message, ignoring case. A request takes the first unused entry whose role/match fit; if no
// such constrained entry exists, the next unused entry without constraints, in order. Each entry
// answers once. `hold` (a directory) makes the answer wait: the backend creates <hold>/planning
// (holding its pid) and answers once <hold>/release exists (or the request is cancelled), so a
// test knows a process is inside a model request and can stop it there.
#pragma once

#include "llm/chat_backend.hpp"

#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

namespace skillhost::llm {

struct ScriptEntry {
    std::optional<std::string> role;
    std::optional<std::string> match;   // text found in the last message, ignoring case
    std::string response;               // a JSON response object is stored serialized
    int line = 0;                       // where it was defined, for messages
    std::optional<std::string> hold{};  // a directory: wait for <hold>/release before answering
};

class ScriptedBackend final : public ChatBackend {
public:
    // `source` names the script in messages ("(inline)" for scripts built in code).
    // Errors LLM_SCRIPT_INVALID for an empty `match`.
    static Result<std::shared_ptr<ScriptedBackend>> create(std::vector<ScriptEntry> entries,
                                                           std::string source = "(inline)");
    // YAML (a list, or {responses: [...]}) or JSONL (one object a line, for .jsonl/.ndjson files).
    // Errors LLM_SCRIPT_INVALID with file:line, LLM_SCRIPT_NOT_FOUND.
    static Result<std::shared_ptr<ScriptedBackend>> load(const std::filesystem::path& path);

    Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                              const StreamDeltaHandler& on_delta) override;
    std::string_view kind() const override { return "scripted"; }

    // Every request received so far, in order (tests inspect the prompts the operator built).
    std::vector<ChatRequest> requests() const;
    std::size_t remaining() const;

private:
    struct Slot {
        ScriptEntry entry;
        std::optional<std::string> pattern;  // `match` in lower case
        bool used = false;
    };
    ScriptedBackend(std::vector<Slot> slots, std::string source);

    mutable std::mutex mutex_;
    std::vector<Slot> slots_;
    std::string source_;
    std::vector<ChatRequest> requests_;
};

}  // namespace skillhost::llm
