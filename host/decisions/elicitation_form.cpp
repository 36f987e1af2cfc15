#include "decisions/elicitation_form.hpp"
#include "plugin/error_codes.hpp"

#include "base/json_text.hpp"

#include <boost/json/serialize.hpp>

#include <string_view>
#include <vector>

namespace skillhost::decisions {

namespace json = boost::json;

namespace {

bool is_integer(const json::value& v) {
    if (v.is_int64() || v.is_uint64()) return true;
    if (!v.is_double()) return false;
    const double d = v.get_double();
    return d >= -9.0e15 && d <= 9.0e15 && d == static_cast<double>(static_cast<long long>(d));
}

bool is_count(const json::value& v) {
    return v.is_uint64() || (v.is_int64() && v.get_int64() >= 0);
}

bool has_type(const json::value& v, std::string_view type) {
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_bool();
    if (type == "number") return v.is_number();
    if (type == "array") return v.is_array();
    return is_integer(v);  // "integer"
}

std::size_t code_points(std::string_view text) {
    std::size_t n = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

std::string quoted(std::string_view text) {
    return "\"" + std::string(text.substr(0, 64)) + "\"";
}

// The choices a field offers: its `enum`, the consts of its `oneOf`, or those of its `items` for a
// multi-select. Empty for free input. The schema has passed form_schema_problem.
std::vector<std::string_view> options_of(const json::object& field) {
    const json::object* holder = &field;
    if (const json::value* items = field.if_contains("items")) holder = &items->get_object();
    std::vector<std::string_view> options;
    if (const json::value* e = holder->if_contains("enum"))
        for (const auto& option : e->get_array()) options.push_back(option.get_string());
    for (const char* key : {"oneOf", "anyOf"})
        if (const json::value* titled = holder->if_contains(key))
            for (const auto& option : titled->get_array()) options.push_back(option.at("const").get_string());
    return options;
}

bool offers(const std::vector<std::string_view>& options, std::string_view value) {
    for (std::string_view option : options)
        if (option == value) return true;
    return false;
}

std::string listing(const std::vector<std::string_view>& options) {
    std::string text;
    for (std::string_view option : options) {
        if (text.size() > 300) return text + ", ...";
        text += (text.empty() ? "" : ", ") + quoted(option);
    }
    return text;
}

// Whether `value` answers the field; a sentence saying why not otherwise.
std::optional<std::string> value_problem(const json::object& field, const json::value& value) {
    const std::string_view type = field.at("type").get_string();
    if (!has_type(value, type))
        return "must be " + std::string(type == "integer" || type == "array" ? "an " : "a ") + std::string(type);
    const std::vector<std::string_view> options = options_of(field);
    if (value.is_array()) {
        const json::array& chosen = value.get_array();
        if (chosen.size() > options.size())
            return "has " + std::to_string(chosen.size()) + " choices but only " + std::to_string(options.size()) +
                   " exist";
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            if (!chosen[i].is_string() || !offers(options, chosen[i].get_string()))
                return "holds " + compact_json(chosen[i]).substr(0, 64) + ", which is not one of " + listing(options);
            for (std::size_t j = 0; j < i; ++j)
                if (chosen[j] == chosen[i]) return "holds " + quoted(chosen[i].get_string()) + " twice";
        }
        if (const json::value* m = field.if_contains("minItems"); m && chosen.size() < m->to_number<std::uint64_t>())
            return "needs at least " + json::serialize(*m) + " choices";
        if (const json::value* m = field.if_contains("maxItems"); m && chosen.size() > m->to_number<std::uint64_t>())
            return "allows at most " + json::serialize(*m) + " choices";
        return std::nullopt;
    }
    if (value.is_string()) {
        if (!options.empty() && !offers(options, value.get_string())) return "must be one of " + listing(options);
        const std::size_t n = code_points(value.get_string());
        if (const json::value* m = field.if_contains("minLength"); m && n < m->to_number<std::uint64_t>())
            return "must have at least " + json::serialize(*m) + " characters";
        if (const json::value* m = field.if_contains("maxLength"); m && n > m->to_number<std::uint64_t>())
            return "must have at most " + json::serialize(*m) + " characters";
    }
    if (value.is_number()) {
        const double d = value.to_number<double>();
        if (const json::value* m = field.if_contains("minimum"); m && d < m->to_number<double>())
            return "must be at least " + json::serialize(*m);
        if (const json::value* m = field.if_contains("maximum"); m && d > m->to_number<double>())
            return "must be at most " + json::serialize(*m);
    }
    return std::nullopt;
}

std::string bounds() {
    return "1 to " + std::to_string(kMaxFormOptions);
}

// `enum` or `enumNames`: 1 to kMaxFormOptions strings; `enum` without repeats.
std::optional<std::string> strings_problem(const std::string& where, const json::value& v, bool unique) {
    if (!v.is_array() || v.get_array().empty() || v.get_array().size() > kMaxFormOptions)
        return where + " must be an array of " + bounds() + " strings";
    const json::array& values = v.get_array();
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!values[i].is_string()) return where + " must hold strings only";
        if (unique)
            for (std::size_t j = 0; j < i; ++j)
                if (values[j] == values[i]) return where + " has " + quoted(values[i].get_string()) + " twice";
    }
    return std::nullopt;
}

// `oneOf` / `anyOf`: 1 to kMaxFormOptions {"const": string, "title": string}, consts without repeats.
std::optional<std::string> titled_problem(const std::string& where, const json::value& v) {
    if (!v.is_array() || v.get_array().empty() || v.get_array().size() > kMaxFormOptions)
        return where + " must be an array of " + bounds() + " {\"const\": \"...\", \"title\": \"...\"}";
    const json::array& values = v.get_array();
    for (std::size_t i = 0; i < values.size(); ++i) {
        const json::object* option = values[i].if_object();
        const json::value* c = option ? option->if_contains("const") : nullptr;
        const json::value* t = option ? option->if_contains("title") : nullptr;
        if (!c || !c->is_string() || !t || !t->is_string() || option->size() != 2)
            return where + "[" + std::to_string(i) + "] must be {\"const\": \"...\", \"title\": \"...\"}";
        for (std::size_t j = 0; j < i; ++j)
            if (values[j].at("const") == *c) return where + " has the const " + quoted(c->get_string()) + " twice";
    }
    return std::nullopt;
}

// A multi-select's `items`: {"type": "string", "enum": [...]} or {"anyOf": [{const, title}, ...]}.
std::optional<std::string> items_problem(const std::string& where, const json::value& v) {
    const json::object* items = v.if_object();
    if (!items) return where + " must be an object";
    for (const auto& member : *items) {
        const std::string_view key = member.key();
        const std::string at = where + "." + std::string(key.substr(0, 40));
        if (key == "type") {
            if (member.value() != "string") return at + " must be \"string\"";
        } else if (key == "enum") {
            if (auto problem = strings_problem(at, member.value(), true)) return problem;
        } else if (key == "anyOf") {
            if (auto problem = titled_problem(at, member.value())) return problem;
        } else {
            return where + " may have only type, enum or anyOf, not " + quoted(key);
        }
    }
    if (items->contains("enum") == items->contains("anyOf"))
        return where + " needs exactly one of \"enum\" (plain choices) or \"anyOf\" (titled choices)";
    if (items->contains("enum") && !items->contains("type")) return where + " needs \"type\": \"string\" with enum";
    return std::nullopt;
}

bool allowed(std::string_view kind, std::string_view key) {
    if (key == "type" || key == "title" || key == "description" || key == "default") return true;
    if (kind == "string")
        return key == "enum" || key == "enumNames" || key == "oneOf" || key == "minLength" || key == "maxLength" ||
               key == "format";
    if (kind == "array") return key == "items" || key == "minItems" || key == "maxItems";
    if (kind == "number" || kind == "integer") return key == "minimum" || key == "maximum";
    return false;
}

std::optional<std::string> field_problem(std::string_view name, const json::value& value) {
    const std::string where = "field " + quoted(name);
    const json::object* field = value.if_object();
    if (!field) return where + " must be an object";
    const json::value* type = field->if_contains("type");
    const std::string_view kind = type && type->is_string() ? std::string_view(type->get_string()) : "";
    if (kind != "string" && kind != "number" && kind != "integer" && kind != "boolean" && kind != "array")
        return where + " needs \"type\": string, number, integer, boolean, or array (a multi-select)";
    for (const auto& member : *field) {
        const std::string_view key = member.key();
        const json::value& v = member.value();
        const std::string at = where + "." + std::string(key.substr(0, 40));
        if (!allowed(kind, key))
            return where + " has " + quoted(key) + ", which a " + std::string(kind) +
                   " field cannot have (see the MCP 2025-11-25 elicitation schema)";
        if (key == "title" || key == "description") {
            if (!v.is_string()) return at + " must be a string";
        } else if (key == "enum" || key == "enumNames") {
            if (auto problem = strings_problem(at, v, key == "enum")) return problem;
        } else if (key == "oneOf") {
            if (auto problem = titled_problem(at, v)) return problem;
        } else if (key == "items") {
            if (auto problem = items_problem(at, v)) return problem;
        } else if (key == "minLength" || key == "maxLength" || key == "minItems" || key == "maxItems") {
            if (!is_count(v)) return at + " must be a non-negative integer";
        } else if (key == "format") {
            if (!v.is_string() || !(v == "email" || v == "uri" || v == "date" || v == "date-time"))
                return at + " must be email, uri, date or date-time";
        } else if (key == "minimum" || key == "maximum") {
            if (!v.is_number()) return at + " must be a number";
        }
    }
    if (field->contains("oneOf") && field->contains("enum"))
        return where + " has both \"enum\" and \"oneOf\"; use enum for plain choices, oneOf for titled ones";
    if (const json::value* names = field->if_contains("enumNames")) {
        const json::value* options = field->if_contains("enum");
        if (!options || options->get_array().size() != names->get_array().size())
            return where + ".enumNames needs an enum with as many values";
    }
    if (kind == "array") {
        if (!field->contains("items")) return where + " is a multi-select and needs \"items\"";
        const std::size_t choices = options_of(*field).size();
        const json::value* lo = field->if_contains("minItems");
        const json::value* hi = field->if_contains("maxItems");
        if (lo && lo->to_number<std::uint64_t>() > choices)
            return where + ".minItems is more than the " + std::to_string(choices) + " choices";
        if (lo && hi && lo->to_number<std::uint64_t>() > hi->to_number<std::uint64_t>())
            return where + ".minItems is more than maxItems";
    }
    if (const json::value* d = field->if_contains("default"))
        if (auto problem = value_problem(*field, *d)) return where + ".default " + *problem;
    return std::nullopt;
}

Error invalid(const std::string& problem) {
    return Error{errors::kElicitationInvalid,
                 "the elicitation request is invalid: " + problem +
                     "; send {\"message\": \"...\", \"requestedSchema\": {\"type\": \"object\", \"properties\": "
                     "{NAME: {\"type\": \"string\"|\"number\"|\"integer\"|\"boolean\"|\"array\", ...}}, "
                     "\"required\"?: [...]}} as in the MCP 2025-11-25 elicitation schema"};
}

}  // namespace

std::optional<std::string> form_schema_problem(const json::object& schema) {
    const json::value* type = schema.if_contains("type");
    if (!type || *type != "object") return "requestedSchema.type must be \"object\"";
    const json::value* properties = schema.if_contains("properties");
    if (!properties || !properties->is_object()) return "requestedSchema.properties must be an object";
    if (properties->get_object().size() > kMaxFormFields)
        return "a form may have at most " + std::to_string(kMaxFormFields) + " fields";
    for (const auto& field : properties->get_object())
        if (auto problem = field_problem(field.key(), field.value())) return problem;
    for (const auto& member : schema) {
        const std::string_view key = member.key();
        if (key == "type" || key == "properties" || key == "title" || key == "description") continue;
        if (key == "$schema" && member.value().is_string()) continue;
        if (key != "required") return "requestedSchema has " + quoted(key) + ", which a form cannot have";
        if (!member.value().is_array()) return "requestedSchema.required must be an array of field names";
        for (const auto& name : member.value().get_array())
            if (!name.is_string() || !properties->get_object().contains(name.get_string()))
                return "requestedSchema.required names " + compact_json(name).substr(0, 64) + ", which is not a field";
    }
    return std::nullopt;
}

json::object ElicitationRequest::to_json() const {
    return json::object{{"message", message}, {"requestedSchema", requested_schema}};
}

Result<ElicitationRequest> parse_elicitation_request(std::string_view request_json) {
    if (request_json.size() > kMaxElicitationRequestBytes)
        return invalid("it has " + std::to_string(request_json.size()) + " bytes, more than " +
                       std::to_string(kMaxElicitationRequestBytes));
    json::value parsed;
    std::string problem;
    if (!parse_json(request_json, parsed, problem)) return invalid("it is not JSON (" + problem + ")");
    const json::object* request = parsed.if_object();
    if (!request) return invalid("it must be a JSON object");
    for (const auto& member : *request)
        if (member.key() != "message" && member.key() != "requestedSchema")
            return invalid("unknown field \"" + std::string(member.key().substr(0, 40)) + "\"");
    const json::value* message = request->if_contains("message");
    if (!message || !message->is_string() || message->get_string().empty())
        return invalid("\"message\" must be a non-empty string");
    const json::value* schema = request->if_contains("requestedSchema");
    const json::object* s = schema ? schema->if_object() : nullptr;
    if (!s) return invalid("\"requestedSchema\" must be an object");
    if (auto form_problem = form_schema_problem(*s)) return invalid(*form_problem);
    return ElicitationRequest{std::string(message->get_string()), *s};
}

std::optional<FormAnswerProblem> form_answer_problem(const json::object& schema, const json::object& content) {
    const json::object& properties = schema.at("properties").get_object();
    for (const auto& member : content) {
        const std::string name(member.key());
        const json::value* field = properties.if_contains(member.key());
        if (!field) return FormAnswerProblem{name, "it has " + quoted(member.key()) + ", which the form has not"};
        if (auto problem = value_problem(field->get_object(), member.value()))
            return FormAnswerProblem{name, "field " + quoted(member.key()) + " " + *problem};
    }
    if (const json::value* required = schema.if_contains("required"))
        for (const auto& name : required->get_array())
            if (!content.contains(name.get_string()))
                return FormAnswerProblem{std::string(name.get_string()),
                                         "the required field " + quoted(name.get_string()) + " is missing"};
    return std::nullopt;
}

}  // namespace skillhost::decisions
