#include "llm/builtin_classifier.hpp"

#include <boost/json.hpp>

#include <cctype>
#include <regex>
#include <string>

namespace skillhost::llm::builtin {
namespace {

bool matches(const std::string& text, const char* pattern) {
    return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript | std::regex::icase));
}

boost::json::object result(const char* intent, double confidence, const char* reasoning) {
    return boost::json::object{{"intent", intent}, {"confidence", confidence}, {"reasoning", reasoning}};
}

}  // namespace

boost::json::object classify_intent(std::string_view message) {
    std::string text(message);
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto start = text.find_first_not_of(" \t\r\n");
    text = start == std::string::npos ? std::string() : text.substr(start);

    if (text.empty()) return result("casual", 0.5, "empty message");
    // Several requests in one message need planning over more than one step.
    if (matches(text, R"(\b(and then|after that|afterwards|and also|as well as)\b)") ||
        matches(text, R"(\band (tell|show|list|give|find|create|add|read|send|email)\b)")) {
        return result("complex", 0.8, "the message asks for several things in sequence");
    }
    // Changing data is never a single read-only step.
    if (matches(text, R"(^(please\s+)?(create|add|make|delete|remove|update|rename|mark|complete|write|move|send|schedule)\b)") ||
        matches(text, R"(\b(remind me to|create a|add a|delete the|remove the)\b)")) {
        return result("complex", 0.75, "the message asks to change something");
    }
    if (matches(text, R"(\b(yesterday|today|tonight|this (morning|afternoon|evening|week|month)|last (night|week|month|year)|how was (my|your) (day|week)|what did (i|you) do|what happened|recently)\b)")) {
        return result("temporal", 0.85, "the message asks about a period of time");
    }
    if (matches(text, R"(\b(tasks?|todos?|to-dos?|working on|projects?|to do list|backlog)\b)")) {
        return result("task", 0.85, "the message is about tasks or work");
    }
    if (matches(text, R"(^(hi|hello|hey|yo|thanks|thank you|ok|okay|cool|nice|great|interesting|good (morning|evening|night|afternoon)|bye|goodbye)\b)") &&
        text.size() < 60) {
        return result("casual", 0.9, "a greeting or acknowledgement");
    }
    if (matches(text, R"(^(how are you|what's up|whats up|how's it going)\b)")) {
        return result("casual", 0.85, "small talk");
    }
    int sentences = 0;
    for (char c : text) sentences += (c == '.' || c == '!' || c == '?') ? 1 : 0;
    if (sentences > 2) return result("complex", 0.6, "several sentences");
    if (matches(text, R"([?]|^(what|who|where|when|which|how|why|do|does|did|is|are|was|were|can|could|show|tell|find|list|read)\b)")) {
        return result("factual", 0.7, "a question about facts");
    }
    return result("casual", 0.55, "no question or request recognised");
}

}  // namespace skillhost::llm::builtin
