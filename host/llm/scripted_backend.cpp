#include "llm/scripted_backend.hpp"
#include "llm/error_codes.hpp"

#include "base/guarded_yaml.hpp"

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace skillhost::llm {
namespace {

std::string lower_case(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

namespace json = boost::json;

Error script_error(const std::string& source, int line, const std::string& problem) {
    Error error{errors::kLlmScriptInvalid,
                source + (line > 0 ? ":" + std::to_string(line) : "") + ": " + problem +
                    " — each entry needs `response` and may have `role` and `match` (text to look for)",
                {},
                {}};
    error.details["file"] = source;
    if (line > 0) error.details["line"] = line;
    return error;
}

// YAML scalars carry no type, so plain ones that look like numbers, booleans or null become those.
json::value yaml_to_json(const YAML::Node& node) {
    if (node.IsMap()) {
        json::object object;
        for (const auto& entry : node) object[entry.first.as<std::string>()] = yaml_to_json(entry.second);
        return object;
    }
    if (node.IsSequence()) {
        json::array array;
        for (const auto& item : node) array.push_back(yaml_to_json(item));
        return array;
    }
    if (node.IsNull()) return nullptr;
    const std::string text = node.as<std::string>();
    if (node.Tag() == "!") return json::string(text);  // quoted in the YAML
    if (text == "true") return true;
    if (text == "false") return false;
    std::int64_t integer = 0;
    if (YAML::convert<std::int64_t>::decode(node, integer)) return integer;
    double number = 0;
    if (YAML::convert<double>::decode(node, number)) return number;
    return json::string(text);
}

Result<ScriptEntry> entry_from_yaml(const YAML::Node& node, const std::string& source) {
    const int line = node.Mark().line + 1;
    if (!node.IsMap()) return script_error(source, line, "an entry must be a mapping");
    ScriptEntry entry;
    entry.line = line;
    for (const auto& field : node) {
        const std::string key = field.first.as<std::string>();
        if (key == "role") {
            entry.role = field.second.as<std::string>();
        } else if (key == "match") {
            entry.match = field.second.as<std::string>();
        } else if (key == "hold") {
            entry.hold = field.second.as<std::string>();
        } else if (key == "response") {
            entry.response =
                field.second.IsScalar() ? field.second.as<std::string>() : json::serialize(yaml_to_json(field.second));
        } else {
            return script_error(source, field.first.Mark().line + 1, "unknown key '" + key + "'");
        }
    }
    if (!node["response"]) return script_error(source, line, "the entry has no `response`");
    return entry;
}

Result<ScriptEntry> entry_from_json(const json::value& value, const std::string& source, int line) {
    if (!value.is_object()) return script_error(source, line, "a line must be a JSON object");
    ScriptEntry entry;
    entry.line = line;
    bool has_response = false;
    for (const auto& field : value.as_object()) {
        const std::string key(field.key());
        if (key == "role" && field.value().is_string()) {
            entry.role = std::string(field.value().as_string());
        } else if (key == "match" && field.value().is_string()) {
            entry.match = std::string(field.value().as_string());
        } else if (key == "hold" && field.value().is_string()) {
            entry.hold = std::string(field.value().as_string());
        } else if (key == "response") {
            has_response = true;
            entry.response =
                field.value().is_string() ? std::string(field.value().as_string()) : json::serialize(field.value());
        } else {
            return script_error(source, line, "unexpected key '" + key + "' (or a value of the wrong type)");
        }
    }
    if (!has_response) return script_error(source, line, "the entry has no `response`");
    return entry;
}

// An entry's `hold`: says this process is inside the request, then waits for the release (at most
// two minutes). False when the request was cancelled meanwhile.
bool hold_until_released(const std::filesystem::path& dir, const std::atomic<bool>* cancel) {
    {
        // Written whole, then renamed: a test never reads a half-written file.
        std::ofstream(dir / "planning.tmp") << ::getpid() << "\n";
    }
    std::error_code ec;
    std::filesystem::rename(dir / "planning.tmp", dir / "planning", ec);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!std::filesystem::exists(dir / "release", ec) && std::chrono::steady_clock::now() < give_up) {
        if (cancel && cancel->load()) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace

ScriptedBackend::ScriptedBackend(std::vector<Slot> slots, std::string source)
    : slots_(std::move(slots)), source_(std::move(source)) {}

Result<std::shared_ptr<ScriptedBackend>> ScriptedBackend::create(std::vector<ScriptEntry> entries, std::string source) {
    std::vector<Slot> slots;
    for (auto& entry : entries) {
        Slot slot;
        if (entry.match) {
            if (entry.match->empty()) {
                return script_error(source, entry.line, "`match` is empty: give text the last message must contain");
            }
            slot.pattern = lower_case(*entry.match);
        }
        slot.entry = std::move(entry);
        slots.push_back(std::move(slot));
    }
    return std::shared_ptr<ScriptedBackend>(new ScriptedBackend(std::move(slots), std::move(source)));
}

Result<std::shared_ptr<ScriptedBackend>> ScriptedBackend::load(const std::filesystem::path& path) {
    const std::string source = path.string();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        Error error{errors::kLlmScriptNotFound,
                    "cannot read the script " + source +
                        " — check the `script` path in models.yaml (relative paths "
                        "start at the directory of models.yaml)",
                    {},
                    {}};
        error.details["file"] = source;
        return error;
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::vector<ScriptEntry> entries;
    const auto extension = path.extension().string();
    if (extension == ".jsonl" || extension == ".ndjson") {
        std::istringstream lines(text.str());
        std::string line;
        for (int number = 1; std::getline(lines, line); ++number) {
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            json::error_code ec;
            const auto value = json::parse(line, ec);
            if (ec) return script_error(source, number, "not valid JSON: " + ec.message());
            auto entry = entry_from_json(value, source, number);
            if (!entry) return entry.error();
            entries.push_back(std::move(*entry));
        }
    } else {
        YAML::Node root;
        try {
            root = load_guarded_yaml(text.str());
        } catch (const YAML::ParserException& e) {
            return script_error(source, e.mark.line + 1, "not valid YAML: " + e.msg);
        }
        YAML::Node list = root.IsMap() ? root["responses"] : root;
        if (!list || !list.IsSequence()) {
            return script_error(source, 1, "expected a list of entries (or `responses:` with a list)");
        }
        try {
            for (const auto& node : list) {
                auto entry = entry_from_yaml(node, source);
                if (!entry) return entry.error();
                entries.push_back(std::move(*entry));
            }
        } catch (const YAML::Exception& e) {
            return script_error(source, e.mark.line + 1, e.msg);
        }
    }
    return create(std::move(entries), source);
}

Result<ChatResponse> ScriptedBackend::chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                                           const StreamDeltaHandler& on_delta) {
    const auto started = std::chrono::steady_clock::now();
    if (cancel && cancel->load()) {
        return Error{errors::kLlmCancelled, "the request to the scripted backend was cancelled", {}, {}};
    }
    const std::string last = request.messages.empty() ? std::string() : request.messages.back().content;
    const std::string last_lower = lower_case(last);
    std::string content;
    std::optional<std::string> hold;
    {
        std::lock_guard lock(mutex_);
        requests_.push_back(request);
        Slot* chosen = nullptr;
        for (auto& slot : slots_) {
            if (slot.used || (!slot.entry.role && !slot.pattern)) continue;
            if (slot.entry.role && *slot.entry.role != request.role) continue;
            if (slot.pattern && last_lower.find(*slot.pattern) == std::string::npos) continue;
            chosen = &slot;
            break;
        }
        if (!chosen) {
            for (auto& slot : slots_) {
                if (!slot.used && !slot.entry.role && !slot.pattern) {
                    chosen = &slot;
                    break;
                }
            }
        }
        if (!chosen) {
            std::size_t used = 0;
            for (const auto& slot : slots_) used += slot.used ? 1 : 0;
            const std::string asked = last.size() > 200 ? last.substr(0, 200) + "…" : last;
            Error error{errors::kLlmScriptExhausted,
                        "the script " + source_ + " has no unused response for role " + request.role + " (" +
                            std::to_string(used) + " of " + std::to_string(slots_.size()) +
                            " responses used); last message: \"" + asked +
                            "\" — add an entry for this request to the script",
                        {},
                        {}};
            error.details["file"] = source_;
            error.details["role"] = request.role;
            error.details["last_message"] = asked;
            error.details["used"] = static_cast<std::int64_t>(used);
            error.details["total"] = static_cast<std::int64_t>(slots_.size());
            return error;
        }
        chosen->used = true;
        content = chosen->entry.response;
        hold = chosen->entry.hold;
    }
    if (hold && !hold_until_released(*hold, cancel)) {
        return Error{errors::kLlmCancelled, "the request to the scripted backend was cancelled", {}, {}};
    }
    if (on_delta) on_delta(content);
    ChatResponse response;
    response.content = std::move(content);
    response.model = "script:" + source_;
    response.backend = "scripted";
    response.prompt_tokens = estimate_prompt_tokens(request);
    response.completion_tokens = estimate_tokens(response.content);
    response.tokens_estimated = true;
    response.latency =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    return response;
}

std::vector<ChatRequest> ScriptedBackend::requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
}

std::size_t ScriptedBackend::remaining() const {
    std::lock_guard lock(mutex_);
    std::size_t count = 0;
    for (const auto& slot : slots_) count += slot.used ? 0 : 1;
    return count;
}

}  // namespace skillhost::llm
