#include "mcp/skill_elicitation.hpp"

#include "base/json_text.hpp"

#include <boost/json/serialize.hpp>

#include <optional>

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxRequestBytes = 64 * 1024;
constexpr std::size_t kMaxFields = 32;
constexpr std::size_t kMaxEnumValues = 100;

Error invalid(const std::string& problem) {
    return Error{"ELICITATION_INVALID",
                 "the elicitation request is invalid: " + problem +
                     "; send {\"message\": \"...\", \"requestedSchema\": {\"type\": \"object\", \"properties\": "
                     "{NAME: {\"type\": \"string\"|\"number\"|\"integer\"|\"boolean\", ...}}, \"required\"?: [...]}}"};
}

Error bad_answer(const std::string& problem) {
    return Error{"ELICITATION_FAILED",
                 "the user's answer could not be used: " + problem,
                 {},
                 {"ask again, or continue without the input"}};
}

bool is_integer(const json::value& v) {
    if (v.is_int64() || v.is_uint64()) return true;
    if (!v.is_double()) return false;
    const double d = v.get_double();
    return d == static_cast<double>(static_cast<long long>(d));
}

bool has_type(const json::value& v, std::string_view type) {
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_bool();
    if (type == "number") return v.is_number();
    return is_integer(v);  // "integer"
}

std::size_t code_points(std::string_view text) {
    std::size_t n = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

// Whether `value` satisfies the field; a sentence saying why not otherwise.
std::optional<std::string> field_problem(const json::object& field, const json::value& value) {
    const std::string_view type = field.at("type").get_string();
    if (!has_type(value, type)) return "must be a " + std::string(type);
    if (const json::value* e = field.if_contains("enum")) {
        bool found = false;
        for (const auto& option : e->get_array()) found = found || option == value;
        if (!found) return "must be one of " + json::serialize(*e);
    }
    if (value.is_string()) {
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

std::optional<Error> check_field(std::string_view name, const json::value& value) {
    const std::string where = "field \"" + std::string(name.substr(0, 64)) + "\"";
    const json::object* field = value.if_object();
    if (!field) return invalid(where + " must be an object");
    const json::value* type = field->if_contains("type");
    if (!type || !type->is_string() ||
        !(type->get_string() == "string" || type->get_string() == "number" || type->get_string() == "integer" ||
          type->get_string() == "boolean"))
        return invalid(where + " needs \"type\": string, number, integer or boolean (no objects or arrays)");
    const std::string_view kind = type->get_string();
    for (const auto& member : *field) {
        const std::string_view key = member.key();
        const json::value& v = member.value();
        if (key == "type") continue;
        if (key == "title" || key == "description") {
            if (!v.is_string()) return invalid(where + "." + std::string(key) + " must be a string");
        } else if (key == "enum" || key == "enumNames") {
            if (kind != "string") return invalid(where + " may have \"" + std::string(key) + "\" only as a string");
            if (!v.is_array() || v.get_array().empty() || v.get_array().size() > kMaxEnumValues)
                return invalid(where + "." + std::string(key) + " must be an array of 1 to " +
                               std::to_string(kMaxEnumValues) + " strings");
            for (const auto& option : v.get_array())
                if (!option.is_string()) return invalid(where + "." + std::string(key) + " must hold strings only");
        } else if (key == "minLength" || key == "maxLength") {
            if (kind != "string" || !(v.is_uint64() || (v.is_int64() && v.get_int64() >= 0)))
                return invalid(where + "." + std::string(key) + " must be a non-negative integer on a string field");
        } else if (key == "format") {
            if (kind != "string" || !v.is_string() ||
                !(v.get_string() == "email" || v.get_string() == "uri" || v.get_string() == "date" ||
                  v.get_string() == "date-time"))
                return invalid(where + ".format must be email, uri, date or date-time on a string field");
        } else if (key == "minimum" || key == "maximum") {
            if ((kind != "number" && kind != "integer") || !v.is_number())
                return invalid(where + "." + std::string(key) + " must be a number on a number or integer field");
        } else if (key == "default") {
            // checked below, once every constraint is known
        } else {
            return invalid(where + " has \"" + std::string(key.substr(0, 40)) +
                           "\", which a form field cannot have (type, title, description, default, enum, enumNames, "
                           "minLength, maxLength, format, minimum, maximum)");
        }
    }
    if (const json::value* names = field->if_contains("enumNames")) {
        const json::value* options = field->if_contains("enum");
        if (!options || options->get_array().size() != names->get_array().size())
            return invalid(where + ".enumNames needs an enum with as many values");
    }
    if (const json::value* d = field->if_contains("default"))
        if (auto problem = field_problem(*field, *d)) return invalid(where + ".default " + *problem);
    return std::nullopt;
}

}  // namespace

Result<json::object> elicitation_params(std::string_view request_json) {
    if (request_json.size() > kMaxRequestBytes)
        return invalid("it has " + std::to_string(request_json.size()) + " bytes, more than " +
                       std::to_string(kMaxRequestBytes));
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
    const json::value* type = s->if_contains("type");
    if (!type || !type->is_string() || type->get_string() != "object")
        return invalid("requestedSchema.type must be \"object\"");
    const json::value* properties = s->if_contains("properties");
    if (!properties || !properties->is_object()) return invalid("requestedSchema.properties must be an object");
    if (properties->get_object().size() > kMaxFields)
        return invalid("a form may have at most " + std::to_string(kMaxFields) + " fields");
    for (const auto& field : properties->get_object())
        if (auto error = check_field(field.key(), field.value())) return *error;
    for (const auto& member : *s) {
        const std::string_view key = member.key();
        if (key == "type" || key == "properties" || key == "title" || key == "description") continue;
        if (key != "required") return invalid("requestedSchema has \"" + std::string(key.substr(0, 40)) + "\"");
        if (!member.value().is_array()) return invalid("requestedSchema.required must be an array of field names");
        for (const auto& name : member.value().get_array())
            if (!name.is_string() || !properties->get_object().contains(name.get_string()))
                return invalid("requestedSchema.required names " + compact_json(name) + ", which is not a field");
    }
    return json::object{{"message", *message}, {"requestedSchema", *schema}};
}

Result<std::string> read_elicitation_answer(const json::object& response, const json::object& requested_schema) {
    if (const json::value* error = response.if_contains("error")) {
        std::string why = "the client answered with an error";
        if (const json::object* e = error->if_object())
            if (const json::value* m = e->if_contains("message"); m && m->is_string())
                why += ": " + std::string(std::string_view(m->get_string()).substr(0, 300));
        return bad_answer(why);
    }
    const json::value* result = response.if_contains("result");
    const json::object* r = result ? result->if_object() : nullptr;
    const json::value* action = r ? r->if_contains("action") : nullptr;
    if (!action || !action->is_string()) return bad_answer("the answer has no action");
    const std::string_view kind = action->get_string();
    if (kind == "decline" || kind == "cancel") return json::serialize(json::object{{"action", kind}});
    if (kind != "accept") return bad_answer("the action \"" + std::string(kind.substr(0, 40)) + "\" is unknown");
    const json::object& properties = requested_schema.at("properties").get_object();
    json::object content;
    if (const json::value* c = r->if_contains("content"); c && !c->is_null()) {
        if (!c->is_object()) return bad_answer("the accepted content is not an object");
        content = c->get_object();
    }
    for (const auto& member : content) {
        const json::value* field = properties.if_contains(member.key());
        if (!field)
            return bad_answer("it has \"" + std::string(member.key().substr(0, 64)) + "\", which the form has not");
        if (auto problem = field_problem(field->get_object(), member.value()))
            return bad_answer("field \"" + std::string(member.key()) + "\" " + *problem);
    }
    if (const json::value* required = requested_schema.if_contains("required"))
        for (const auto& name : required->get_array())
            if (!content.contains(name.get_string()))
                return bad_answer("the required field \"" + std::string(name.get_string()) + "\" is missing");
    return json::serialize(json::object{{"action", "accept"}, {"content", std::move(content)}});
}

}  // namespace skillhost::mcp
