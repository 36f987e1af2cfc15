#include "language/intent_rules.hpp"

#include "language/text_scan.hpp"

#include <boost/json.hpp>

#include <string>

namespace skillhost::language {
namespace {

boost::json::object result(const char* intent, double confidence, const char* reasoning) {
    return boost::json::object{{"intent", intent}, {"confidence", confidence}, {"reasoning", reasoning}};
}

bool asks_several_things(const std::string& text) {
    if (has_any_phrase(text, {"and then", "after that", "afterwards", "and also", "as well as"})) return true;
    for (std::string_view verb : {"tell", "show", "list", "give", "find", "create", "add", "read", "send", "email",
                                  "rename", "mark", "update", "delete", "tag"}) {
        if (has_phrase(text, "and " + std::string(verb))) return true;
    }
    return false;
}

}  // namespace

boost::json::object classify_intent(std::string_view message) {
    std::string text = lowercase(message);
    const auto start = text.find_first_not_of(" \t\r\n");
    text = start == std::string::npos ? std::string() : text.substr(start);

    if (text.empty()) return result("casual", 0.5, "empty message");
    // Several requests in one message need planning over more than one step.
    if (asks_several_things(text)) return result("complex", 0.8, "the message asks for several things in sequence");
    // Changing data is never a single read-only step.
    if (starts_with_any_phrase(text, {"create",        "add",
                                      "make",          "delete",
                                      "remove",        "update",
                                      "rename",        "mark",
                                      "complete",      "write",
                                      "move",          "send",
                                      "schedule",      "please create",
                                      "please add",    "please make",
                                      "please delete", "please remove",
                                      "please update", "please rename",
                                      "please mark",   "please complete",
                                      "please write",  "please move",
                                      "please send",   "please schedule"}) ||
        has_any_phrase(text, {"remind me to", "create a", "add a", "delete the", "remove the"})) {
        return result("complex", 0.75, "the message asks to change something");
    }
    if (has_any_phrase(text,
                       {"yesterday",         "today",         "tonight",         "this morning",    "this afternoon",
                        "this evening",      "this week",     "this month",      "last night",      "last week",
                        "last month",        "last year",     "how was my day",  "how was my week", "how was your day",
                        "how was your week", "what did i do", "what did you do", "what happened",   "recently"})) {
        return result("temporal", 0.85, "the message asks about a period of time");
    }
    if (has_any_phrase(text, {"task", "tasks", "todo", "todos", "to-do", "to-dos", "working on", "project", "projects",
                              "to do list", "backlog"})) {
        return result("task", 0.85, "the message is about tasks or work");
    }
    if (starts_with_any_phrase(
            text, {"hi", "hello", "hey", "yo", "thanks", "thank you", "ok", "okay", "cool", "nice", "great",
                   "interesting", "good morning", "good evening", "good night", "good afternoon", "bye", "goodbye"}) &&
        text.size() < 60) {
        return result("casual", 0.9, "a greeting or acknowledgement");
    }
    if (starts_with_any_phrase(text, {"how are you", "what's up", "whats up", "how's it going"})) {
        return result("casual", 0.85, "small talk");
    }
    int sentences = 0;
    for (char c : text) sentences += (c == '.' || c == '!' || c == '?') ? 1 : 0;
    if (sentences > 2) return result("complex", 0.6, "several sentences");
    if (text.find('?') != std::string::npos ||
        starts_with_any_phrase(text,
                               {"what", "who", "where", "when", "which", "how",  "why",  "do",   "does", "did", "is",
                                "are",  "was", "were",  "can",  "could", "show", "tell", "find", "list", "read"})) {
        return result("factual", 0.7, "a question about facts");
    }
    return result("casual", 0.55, "no question or request recognised");
}

}  // namespace skillhost::language
