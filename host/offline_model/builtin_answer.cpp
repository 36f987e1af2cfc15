#include "offline_model/builtin_answer.hpp"

#include "language/text_scan.hpp"

#include <boost/json.hpp>

#include <array>
#include <cctype>

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis
namespace {

namespace json = boost::json;

constexpr std::array<std::string_view, 9> kPrimaryFields = {"title",   "name",    "path",    "summary", "text",
                                                            "snippet", "content", "message", "id"};
constexpr std::array<std::string_view, 12> kDetailFields = {"status",    "priority", "due",  "tags",    "type", "size",
                                                            "timestamp", "time",     "when", "created", "kind", "id"};

std::string scalar_text(const json::value& value) {
    if (value.is_string()) return std::string(value.as_string());
    if (value.is_bool()) return value.as_bool() ? "yes" : "no";
    if (value.is_null()) return "none";
    if (value.is_array()) {
        std::string joined;
        for (const auto& item : value.as_array()) {
            joined += (joined.empty() ? "" : ", ") + scalar_text(item);
        }
        return joined;
    }
    if (value.is_object()) return json::serialize(value);
    return json::serialize(value);
}

std::string one_line(std::string text, std::size_t limit = 160) {
    for (auto& c : text) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    if (text.size() > limit) text = text.substr(0, limit) + "…";
    return text;
}

std::string item_line(const json::value& item) {
    if (!item.is_object()) return "- " + one_line(scalar_text(item));
    const auto& object = item.as_object();
    std::string primary_field;
    std::string line = "- ";
    for (auto field : kPrimaryFields) {
        if (const auto* value = object.if_contains(field); value && !value->is_null() && !value->is_object()) {
            line += one_line(scalar_text(*value));
            primary_field = std::string(field);
            break;
        }
    }
    if (primary_field.empty()) return "- " + one_line(json::serialize(object));
    std::string details;
    for (auto field : kDetailFields) {
        if (field == primary_field) continue;
        const auto* value = object.if_contains(field);
        if (!value || value->is_null() || (value->is_array() && value->as_array().empty()) || value->is_object())
            continue;
        if (value->is_string() && value->as_string().empty()) continue;
        details += (details.empty() ? "" : ", ") + std::string(field) + ": " + one_line(scalar_text(*value), 60);
    }
    if (!details.empty()) line += " (" + details + ")";
    return line;
}

// The first array in an object, which is the list the observation is about (tasks, entries, results).
const json::array* main_list(const json::object& object, std::string& name) {
    for (const auto& field : object) {
        if (field.value().is_array()) {
            name = std::string(field.key());
            return &field.value().as_array();
        }
    }
    return nullptr;
}

std::string render_list(const json::array& items, const std::string& name, bool summary) {
    if (items.empty()) return "No " + name + " found.";
    std::string text = std::to_string(items.size()) + " " + name + ":";
    if (summary) {
        std::string titles;
        std::size_t shown = 0;
        for (const auto& item : items) {
            if (shown == 5) break;
            std::string line = item_line(item).substr(2);
            const auto paren = line.find(" (");
            if (paren != std::string::npos) line.resize(paren);
            titles += (titles.empty() ? " " : "; ") + line;
            ++shown;
        }
        if (items.size() > shown) titles += "; and " + std::to_string(items.size() - shown) + " more";
        return text + titles + ".";
    }
    for (const auto& item : items) text += "\n" + item_line(item);
    return text;
}

std::string render_data(const json::value& data, const json::object& args, bool summary) {
    if (!data.is_object()) {
        if (data.is_array()) return render_list(data.as_array(), "items", summary);
        return scalar_text(data);
    }
    const auto& object = data.as_object();
    if (const auto* content = object.if_contains("content"); content && content->is_string()) {
        std::string path = object.contains("path")
                               ? scalar_text(object.at("path"))
                               : (args.contains("path") ? scalar_text(args.at("path")) : "the file");
        std::string text = "Contents of " + path + ":\n" + std::string(content->as_string());
        if (const auto* truncated = object.if_contains("truncated");
            truncated && truncated->is_bool() && truncated->as_bool()) {
            text += "\n(truncated)";
        }
        return text;
    }
    std::string name;
    if (const auto* list = main_list(object, name)) return render_list(*list, name, summary);
    // A single record (a created task, a written file): its scalar fields, nested records flattened.
    std::string text;
    for (const auto& field : object) {
        if (field.value().is_object()) {
            text += (text.empty() ? "" : "\n") + std::string(field.key()) + ": " + item_line(field.value()).substr(2);
        } else {
            text += (text.empty() ? "" : "\n") + std::string(field.key()) + ": " + one_line(scalar_text(field.value()));
        }
    }
    return text.empty() ? "No data." : text;
}

std::string render_error(const json::value& error) {
    if (error.is_string()) return std::string(error.as_string());
    if (!error.is_object()) return scalar_text(error);
    const auto& object = error.as_object();
    std::string text;
    if (const auto* code = object.if_contains("code"); code && code->is_string())
        text += std::string(code->as_string());
    if (const auto* message = object.if_contains("message"); message && message->is_string()) {
        text += (text.empty() ? "" : " — ") + std::string(message->as_string());
    }
    if (const auto* suggestions = object.if_contains("suggestions");
        suggestions && suggestions->is_array() && !suggestions->as_array().empty()) {
        text += " (suggestions: " + scalar_text(*suggestions) + ")";
    }
    return text;
}

}  // namespace

std::string render_answer(const json::object& context) {
    const auto* style_value = context.if_contains("style");
    const bool summary = style_value && style_value->is_string() && style_value->as_string() == "summary";
    const auto* observations = context.if_contains("observations");
    std::string answer;
    std::string failures;
    if (observations && observations->is_array()) {
        for (const auto& item : observations->as_array()) {
            if (!item.is_object()) continue;
            const auto& observation = item.as_object();
            const std::string tool = observation.contains("tool") ? scalar_text(observation.at("tool")) : "a tool";
            const json::object args = observation.contains("args") && observation.at("args").is_object()
                                          ? observation.at("args").as_object()
                                          : json::object{};
            const auto* ok = observation.if_contains("ok");
            if (ok && ok->is_bool() && ok->as_bool()) {
                const json::value data = observation.contains("data") ? observation.at("data") : json::value(nullptr);
                answer += (answer.empty() ? "" : "\n\n") + render_data(data, args, summary);
            } else {
                const json::value error =
                    observation.contains("error") ? observation.at("error") : json::value("failed");
                failures +=
                    (failures.empty() ? "" : "\n") + std::string("- ") + tool + " failed: " + render_error(error);
            }
        }
    }
    std::string note;
    if (const auto* instructions = context.if_contains("instructions"); instructions && instructions->is_string()) {
        const std::string_view text = instructions->as_string();
        if (const auto at = text.find(kNoteLead); at != std::string_view::npos) {
            note = std::string(text.substr(at + kNoteLead.size()));
        }
    }
    if (note.starts_with(kAnswerLead)) return note.substr(kAnswerLead.size()) + "\n\n" + std::string(kBuiltinMarker);
    if (!note.empty()) {
        // The note names what failed and the suggested fixes itself when something did.
        const bool note_reports_failures = note.find(" failed") != std::string::npos;
        std::string text = note;
        if (!answer.empty()) text += "\n\n" + answer;
        if (!failures.empty() && !note_reports_failures) text += "\n\nSome steps failed:\n" + failures;
        return text + "\n\n" + std::string(kBuiltinMarker);
    }
    if (answer.empty() && failures.empty()) {
        answer = "I found no data for this request.";
    } else if (answer.empty()) {
        answer = "I could not get the data:\n" + failures;
    } else if (!failures.empty()) {
        answer += "\n\nSome steps failed:\n" + failures;
    }
    return answer + "\n\n" + std::string(kBuiltinMarker);
}

std::string casual_reply(std::string_view message) {
    const std::string text = lowercase(message);
    std::string reply;
    if (starts_with_any_phrase(text, {"hi", "hello", "hey", "good morning", "good afternoon", "good evening"})) {
        reply = "Hello! ";
    } else if (starts_with_any_phrase(text, {"thanks", "thank you"})) {
        reply = "You're welcome! ";
    }
    reply +=
        "No language model is configured, so I can answer questions about your tasks, files and memory, "
        "but not chat freely. Configure a model in models.yaml to talk.";
    return reply + "\n\n" + std::string(kBuiltinMarker);
}

}  // namespace skillhost::offline_model
