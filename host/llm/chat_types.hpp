// The data exchanged with a chat model: what the operator asks and what a backend answers.
// The LLM layer knows nothing about catalogs or executors; everything arrives here as data.
#pragma once

#include <boost/json/object.hpp>

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::llm {

// Which job a request does; models.yaml maps each role to a model.
inline constexpr std::array<std::string_view, 6> kRoles = {"orchestrator", "persona",    "classifier",
                                                           "critic",       "summarizer", "fallback"};

// Cognitive modes that may override role assignments in models.yaml.
inline constexpr std::array<std::string_view, 3> kModes = {"dual", "agent", "emulation"};

bool is_known_role(std::string_view role);
bool is_known_mode(std::string_view mode);

struct ChatMessage {
    std::string role;  // system | user | assistant
    std::string content;
};

struct ChatRequest {
    std::string role = "orchestrator";
    std::string cognitive_mode;  // empty: no mode override
    // Who the call is for, carried into the llm_call audit record (empty: not known).
    std::string user_id;
    std::string run_id;
    std::vector<ChatMessage> messages;
    // When set, the backend is asked for output matching this JSON Schema (structured output).
    std::optional<boost::json::object> json_schema;
    std::string schema_name = "response";
    std::optional<double> temperature;
    std::optional<int> max_tokens;
    // Structured inputs for the builtin backend, so it never has to parse prose. Remote backends
    // ignore it: the messages must carry the same content. Shapes, by "task":
    //   plan:     {"task":"plan", "goal": str,
    //              "tools": [{"id", "description", "inputs": JSON Schema {properties, required},
    //                         "examples": [{"description", "args"}], "read_only": bool}],
    //              "steps": [{"tool", "args", "ok": bool, "error_code"?, "observation_summary"?}],
    //              "history"?: [...]}
    //             → content {"thought", "action": {"tool", "args"}} or {"thought", "respond": true}
    //   classify: {"task":"classify", "message": str}
    //             → content {"intent": factual|temporal|task|casual|complex, "confidence", "reasoning"}
    //   answer:   {"task":"answer", "goal": str, "style": "default"|"strict"|"summary",
    //              "observations": [{"tool", "args", "ok": bool, "data": JSON, "error"?: {code, message,
    //              suggestions} or str}]}
    //             → a text rendering of the observations, ending with the builtin marker
    //   probe:    {"task":"probe"} → {"ok":true} (the `models test` health check)
    // Without a context the builtin backend goes by role: classifier classifies and orchestrator
    // plans the last user message; other roles get an honest "no language model" reply.
    boost::json::object context;
};

struct ChatResponse {
    std::string content;
    std::string model;    // the backend's model name (e.g. "qwen2.5:7b")
    std::string backend;  // ollama | openai | scripted | builtin
    int prompt_tokens = 0;
    int completion_tokens = 0;
    bool tokens_estimated = false;  // true when the backend reported no usage and we counted chars/4
    std::chrono::milliseconds latency{0};
};

// Rough token count for backends that report none: about four characters a token for English text.
int estimate_tokens(std::string_view text);
int estimate_prompt_tokens(const ChatRequest& request);

}  // namespace skillhost::llm
