#include "exec/argument_validation.hpp"
#include "exec/error_codes.hpp"

#include "exec/near_names.hpp"

#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>

namespace skillhost::exec {
namespace {

namespace json = boost::json;
using manifest::Schema;
using manifest::SchemaType;

const char* kind_of(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return "null";
        case json::kind::bool_: return "boolean";
        case json::kind::int64:
        case json::kind::uint64: return "integer";
        case json::kind::double_: return "number";
        case json::kind::string: return "string";
        case json::kind::array: return "array";
        case json::kind::object: return "object";
    }
    return "value";
}

// A value as it appears in a message: JSON text, cut short so one huge argument cannot flood the
// planner's context.
std::string format_number(double d);

std::string shown(const json::value& v) {
    std::string text = v.is_double() ? format_number(v.get_double()) : json::serialize(v);
    constexpr std::size_t limit = 60;
    if (text.size() > limit) {
        text.resize(limit);
        text += "...";
    }
    return text;
}

std::string format_number(double d) {
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) {
        return std::to_string(static_cast<long long>(d));
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", d);
    return buffer;
}

bool is_whole_number(const json::value& v) {
    if (v.is_int64() || v.is_uint64()) return true;
    if (!v.is_double()) return false;
    const double d = v.get_double();
    return std::isfinite(d) && d == std::floor(d);
}

double as_double(const json::value& v) {
    if (v.is_int64()) return static_cast<double>(v.get_int64());
    if (v.is_uint64()) return static_cast<double>(v.get_uint64());
    return v.get_double();
}

bool matches_type(SchemaType type, const json::value& v) {
    switch (type) {
        case SchemaType::any: return true;
        case SchemaType::string: return v.is_string();
        case SchemaType::integer: return is_whole_number(v);
        case SchemaType::number: return v.is_number();
        case SchemaType::boolean: return v.is_bool();
        case SchemaType::array: return v.is_array();
        case SchemaType::object: return v.is_object();
        case SchemaType::null: return v.is_null();
    }
    return false;
}

// JSON equality, except that numbers compare by value (2 == 2.0), as JSON Schema's enum does.
bool same_value(const json::value& a, const json::value& b) {
    if (a.is_number() && b.is_number()) return as_double(a) == as_double(b);
    return a == b;
}

std::string enum_text(const std::vector<json::value>& values) {
    std::string out;
    for (const auto& v : values) {
        if (!out.empty()) out += ", ";
        out += v.is_string() ? std::string(v.get_string()) : json::serialize(v);
    }
    return out;
}

std::vector<std::string_view> property_names(const Schema& schema) {
    std::vector<std::string_view> names;
    names.reserve(schema.properties.size());
    for (const auto& [name, _] : schema.properties) names.push_back(name);
    return names;
}

std::string joined(const std::vector<std::string_view>& names) {
    std::string out;
    for (auto n : names) {
        if (!out.empty()) out += ", ";
        out += n;
    }
    return out;
}

const Schema* find_property(const Schema& schema, std::string_view name) {
    for (const auto& [prop, sub] : schema.properties)
        if (prop == name) return &sub;
    return nullptr;
}

bool listed(const std::vector<std::string>& names, std::string_view name) {
    for (const auto& n : names)
        if (n == name) return true;
    return false;
}

// Whether an object may carry fields its schema does not declare: arguments may not (a misspelt
// argument is a mistake worth naming), results may (JSON Schema's default, what MCP clients apply).
enum class UnknownFields { refuse, allow };

class Validator {
public:
    Validator(std::vector<ArgumentProblem>& problems, UnknownFields unknown_fields)
        : problems_(problems), unknown_fields_(unknown_fields) {}

    void check(const Schema& schema, const json::value& v, const std::string& path) {
        if (v.is_null() && schema.nullable) return;
        if (!matches_type(schema.type, v)) {
            add(path, std::string("expected ") + manifest::to_string(schema.type) +
                          (schema.nullable ? " or null" : "") + ", got " +
                          (v.is_null() ? std::string("null") : kind_of(v) + std::string(" ") + shown(v)));
            return;
        }
        if (!schema.enum_values.empty()) {
            bool found = false;
            for (const auto& allowed : schema.enum_values) found = found || same_value(allowed, v);
            if (!found) {
                add(path, "expected one of " + enum_text(schema.enum_values) + ", got " + shown(v));
                return;
            }
        }
        if (v.is_number()) check_range(schema, as_double(v), path);
        if (v.is_string() && schema.pattern) check_pattern(schema, v.get_string(), path);
        if (v.is_array() && schema.items) {
            const auto& items = v.get_array();
            for (std::size_t i = 0; i < items.size(); ++i)
                check(*schema.items, items[i], path + "[" + std::to_string(i) + "]");
        }
        if (v.is_object() && (schema.type == SchemaType::object || !schema.properties.empty()))
            check_object(schema, v.get_object(), path);
    }

    void check_object(const Schema& schema, const json::object& object, const std::string& path) {
        for (const auto& [name, sub] : schema.properties) {
            auto it = object.find(name);
            if (it != object.end()) {
                check(sub, it->value(), path + "." + name);
            } else if (listed(schema.required, name) && !sub.default_value) {
                std::string message = std::string("missing required field (") + manifest::to_string(sub.type);
                if (!sub.description.empty()) message += ": " + sub.description;
                add(path + "." + name, message + ")");
            }
        }
        if (unknown_fields_ == UnknownFields::allow || schema.open) return;
        for (const auto& field : object) {
            const std::string_view key = field.key();
            if (find_property(schema, key)) continue;
            const auto names = property_names(schema);
            std::string message = "unknown field";
            if (names.empty()) {
                message += "; this takes no fields";
            } else {
                message += "; accepted fields: " + joined(names);
                const auto near = near_names(key, names, 1);
                if (!near.empty()) message += " (did you mean \"" + near.front() + "\"?)";
            }
            add(path + "." + std::string(key), message);
        }
    }

private:
    void add(std::string path, std::string message) { problems_.push_back({std::move(path), std::move(message)}); }

    void check_range(const Schema& schema, double d, const std::string& path) {
        if (schema.minimum && d < *schema.minimum)
            add(path, "must be at least " + format_number(*schema.minimum) + ", got " + format_number(d));
        if (schema.maximum && d > *schema.maximum)
            add(path, "must be at most " + format_number(*schema.maximum) + ", got " + format_number(d));
    }

    void check_pattern(const Schema& schema, json::string_view text, const std::string& path) {
        const std::string& pattern = *schema.pattern;
        // Manifests arrive with their patterns compiled; a schema built in code is compiled here.
        std::shared_ptr<const manifest::Pattern> compiled = schema.compiled_pattern;
        if (!compiled) {
            auto fresh = manifest::Pattern::compile(pattern);
            if (!fresh) {
                add(path, "the manifest's pattern /" + pattern + "/ cannot be used (" + fresh.error().message +
                              "); report this to the plugin author");
                return;
            }
            compiled = std::move(fresh.value());
        }
        if (!compiled->found_in(std::string_view(text.data(), text.size())))
            add(path, "must match the pattern /" + pattern + "/, got " + shown(json::value(text)));
    }

    std::vector<ArgumentProblem>& problems_;
    UnknownFields unknown_fields_;
};

void fill_defaults(const Schema& schema, json::value& v) {
    if (v.is_object()) {
        auto& object = v.get_object();
        for (const auto& [name, sub] : schema.properties) {
            auto it = object.find(name);
            if (it == object.end()) {
                if (sub.default_value) object.emplace(name, *sub.default_value);
            } else {
                fill_defaults(sub, it->value());
            }
        }
    } else if (v.is_array() && schema.items) {
        for (auto& item : v.get_array()) fill_defaults(*schema.items, item);
    }
}

// The root of a call's arguments: a missing (null) argument object means "no arguments".
const json::value& root_of(const json::value& args) {
    static const json::value empty_object = json::object();
    return args.is_null() ? empty_object : args;
}

std::string describe_input(std::string_view name, const Schema& sub, bool required) {
    std::string out(name);
    out += " (";
    out += manifest::to_string(sub.type);
    if (sub.type == SchemaType::array && sub.items) {
        out += " of ";
        out += manifest::to_string(sub.items->type);
    }
    if (required && !sub.default_value) out += ", required";
    if (!sub.enum_values.empty()) {
        out += ": ";
        for (std::size_t i = 0; i < sub.enum_values.size(); ++i) {
            if (i) out += "|";
            const auto& e = sub.enum_values[i];
            out += e.is_string() ? std::string(e.get_string()) : json::serialize(e);
        }
    }
    if (sub.default_value) out += ", default " + json::serialize(*sub.default_value);
    out += ")";
    return out;
}

}  // namespace

std::vector<ArgumentProblem> validate_arguments(const manifest::Schema& schema, const boost::json::value& args) {
    std::vector<ArgumentProblem> problems;
    const json::value& root = root_of(args);
    if (schema.type == SchemaType::object && !root.is_object()) {
        problems.push_back(
            {"args", std::string("expected an object of named arguments, got ") + kind_of(root) + " " + shown(root)});
        return problems;
    }
    Validator(problems, UnknownFields::refuse).check(schema, root, "args");
    return problems;
}

std::vector<ArgumentProblem> validate_result(const manifest::Schema& schema, const boost::json::value& result) {
    std::vector<ArgumentProblem> problems;
    Validator(problems, UnknownFields::allow).check(schema, result, "result");
    return problems;
}

Status check_result(std::string_view skill_id, std::string_view plugin_name, const manifest::Schema& schema,
                    const boost::json::value& result) {
    auto problems = validate_result(schema, result);
    if (problems.empty()) return {};
    const auto& first = problems.front();
    std::string message = std::string(skill_id) +
                          " returned a result that breaks its manifest's outputs: " + first.path + ": " + first.message;
    if (problems.size() > 1) message += " (and " + std::to_string(problems.size() - 1) + " more in details.problems)";
    message += "; this is a bug in the plugin '" + std::string(plugin_name) +
               "': its author must fix the result or declare the field in outputs (a field that may be missing "
               "is written as type: [T, \"null\"])";
    Error error{errors::kPluginInvalidResult, std::move(message)};
    error.details["skill"] = skill_id;
    error.details["plugin"] = plugin_name;
    json::array listed_problems;
    constexpr std::size_t kMaxListed = 20;
    for (std::size_t i = 0; i < problems.size() && i < kMaxListed; ++i)
        listed_problems.push_back(json::object{{"path", problems[i].path}, {"message", problems[i].message}});
    error.details["problems"] = std::move(listed_problems);
    error.details["problem_count"] = problems.size();
    return error;
}

boost::json::value apply_defaults(const manifest::Schema& schema, const boost::json::value& args) {
    json::value out = root_of(args);
    fill_defaults(schema, out);
    return out;
}

std::string describe_inputs(std::string_view skill_id, const manifest::Schema& schema) {
    std::string out(skill_id);
    if (schema.properties.empty()) return out + " takes no arguments: pass {}";
    out += " takes: ";
    bool first = true;
    for (const auto& [name, sub] : schema.properties) {
        if (!first) out += ", ";
        first = false;
        out += describe_input(name, sub, listed(schema.required, name));
    }
    return out;
}

Result<boost::json::value> prepare_arguments(std::string_view skill_id, const manifest::Schema& schema,
                                             const boost::json::value& args) {
    auto problems = validate_arguments(schema, args);
    if (problems.empty()) return apply_defaults(schema, args);

    const auto& first = problems.front();
    std::string message = std::string(skill_id) + ": " + first.path + ": " + first.message;
    if (problems.size() > 1)
        message += " (and " + std::to_string(problems.size() - 1) + " more problem" + (problems.size() > 2 ? "s" : "") +
                   " in details.problems)";
    message += "; fix the arguments and call again";

    Error error{errors::kInvalidArgs, std::move(message)};
    error.details["skill"] = skill_id;
    json::array listed_problems;
    for (const auto& p : problems) listed_problems.push_back(json::object{{"path", p.path}, {"message", p.message}});
    error.details["problems"] = std::move(listed_problems);
    json::array accepted;
    for (const auto& [name, _] : schema.properties) accepted.emplace_back(name);
    error.details["accepted_fields"] = std::move(accepted);
    error.suggestions.push_back(describe_inputs(skill_id, schema));
    return error;
}

}  // namespace skillhost::exec
