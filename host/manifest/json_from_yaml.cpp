#include "manifest/json_from_yaml.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

namespace skillhost::manifest::detail {

namespace {

namespace json = boost::json;

std::optional<json::value> infer_scalar(const YAML::Node& node) {
    if (is_null_value(node)) return json::value(nullptr);
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") return json::value(text);  // quoted: always text
    if (auto flag = parse_bool_text(text)) return json::value(*flag);
    if (auto whole = parse_integer_text(text)) return json::value(*whole);
    if (auto real = parse_number_text(text)) return json::value(*real);
    return json::value(text);
}

const char* article_type(SchemaType type) {
    switch (type) {
        case SchemaType::string: return "a string";
        case SchemaType::integer: return "an integer";
        case SchemaType::number: return "a number";
        case SchemaType::boolean: return "true or false";
        case SchemaType::array: return "a list";
        case SchemaType::object: return "a mapping";
        case SchemaType::null: return "null";
        case SchemaType::any: break;
    }
    return "a value";
}

std::optional<double> as_double(const json::value& value) {
    if (value.is_int64()) return static_cast<double>(value.get_int64());
    if (value.is_uint64()) return static_cast<double>(value.get_uint64());
    if (value.is_double()) return value.get_double();
    return std::nullopt;
}

// Numbers compare by value, so `enum: [1, 2]` accepts a default written as 2.0.
bool same_value(const json::value& a, const json::value& b) {
    const auto x = as_double(a);
    const auto y = as_double(b);
    if (x && y) return *x == *y;
    return a == b;
}

std::string number_text(double number) {
    if (std::floor(number) == number && std::fabs(number) < 1e15) {
        return std::to_string(static_cast<long long>(number));
    }
    return json::serialize(json::value(number));
}

std::optional<json::value> read_object(const Field& field, const Schema& schema, ProblemList& problems) {
    auto map = FieldMap::read(field, std::nullopt, problems);
    if (!map) return std::nullopt;
    std::vector<std::string_view> declared;
    for (const auto& [name, property] : schema.properties) declared.push_back(name);
    json::object out;
    bool ok = true;
    for (const auto& [key, entry] : map->entries()) {
        const Schema* property = schema.property(key);
        if (property == nullptr) {
            problems.add(entry,
                         "'" + key + "' is not a declared property" + did_you_mean(key, declared) +
                             (declared.empty() ? "; none are declared" : "; declared properties: " + join(declared)));
            ok = false;
            continue;
        }
        auto converted = json_from_yaml(entry, *property, problems);
        if (!converted) {
            ok = false;
            continue;
        }
        out[key] = std::move(*converted);
    }
    for (const std::string& name : schema.required) {
        if (!out.contains(name) && map->find(name) == nullptr) {
            problems.add(field, "missing required property '" + name + "'");
            ok = false;
        }
    }
    if (!ok) return std::nullopt;
    return json::value(std::move(out));
}

std::optional<json::value> read_array(const Field& field, const Schema& schema, ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return std::nullopt;
    static const Schema any_item;
    const Schema& item_schema = schema.items ? *schema.items : any_item;
    json::array out;
    bool ok = true;
    for (const Field& item : *items) {
        auto converted = json_from_yaml(item, item_schema, problems);
        if (converted) {
            out.push_back(std::move(*converted));
        } else {
            ok = false;
        }
    }
    if (!ok) return std::nullopt;
    return json::value(std::move(out));
}

std::optional<json::value> infer(const Field& field, ProblemList& problems) {
    if (field.value.IsMap()) {
        auto map = FieldMap::read(field, std::nullopt, problems);
        if (!map) return std::nullopt;
        json::object out;
        bool ok = true;
        for (const auto& [key, entry] : map->entries()) {
            auto converted = infer(entry, problems);
            if (converted) {
                out[key] = std::move(*converted);
            } else {
                ok = false;
            }
        }
        if (!ok) return std::nullopt;
        return json::value(std::move(out));
    }
    if (field.value.IsSequence()) return read_array(field, Schema{}, problems);
    if (field.value.IsScalar() || field.value.IsNull()) return infer_scalar(field.value);
    problems.add(field, "expected a value, got " + describe(field.value));
    return std::nullopt;
}

std::optional<json::value> convert(const Field& field, const Schema& schema, ProblemList& problems) {
    const YAML::Node& node = field.value;
    const std::string expected = std::string("expected ") + article_type(schema.type) +
                                 (schema.nullable ? " or null" : "") + ", got " + describe(node);
    if (schema.nullable && is_null_value(node)) return json::value(nullptr);
    switch (schema.type) {
        case SchemaType::any: return infer(field, problems);
        case SchemaType::object:
            if (node.IsMap()) return read_object(field, schema, problems);
            break;
        case SchemaType::array:
            if (node.IsSequence()) return read_array(field, schema, problems);
            break;
        case SchemaType::null:
            if (is_null_value(node)) return json::value(nullptr);
            break;
        case SchemaType::string:
            if (node.IsScalar()) return json::value(node.Scalar());
            break;
        case SchemaType::boolean:
            if (node.IsScalar()) {
                if (auto flag = parse_bool_text(node.Scalar())) return json::value(*flag);
            }
            break;
        case SchemaType::integer:
            if (node.IsScalar()) {
                if (auto whole = parse_integer_text(node.Scalar())) return json::value(*whole);
            }
            break;
        case SchemaType::number:
            if (node.IsScalar()) {
                if (auto whole = parse_integer_text(node.Scalar())) return json::value(*whole);
                if (auto real = parse_number_text(node.Scalar())) return json::value(*real);
            }
            break;
    }
    problems.add(field, expected);
    return std::nullopt;
}

}  // namespace

bool check_constraints(const json::value& value, const Schema& schema, const Field& field, ProblemList& problems) {
    bool ok = true;
    if (!schema.enum_values.empty() &&
        std::none_of(schema.enum_values.begin(), schema.enum_values.end(),
                     [&](const json::value& option) { return same_value(option, value); })) {
        std::vector<std::string> allowed;
        for (const auto& option : schema.enum_values) allowed.push_back(json::serialize(option));
        problems.add(field, json::serialize(value) + " is not one of the allowed values: " + join(allowed));
        ok = false;
    }
    if (auto number = as_double(value)) {
        if (schema.minimum && *number < *schema.minimum) {
            problems.add(field, json::serialize(value) + " is below the minimum " + number_text(*schema.minimum));
            ok = false;
        }
        if (schema.maximum && *number > *schema.maximum) {
            problems.add(field, json::serialize(value) + " is above the maximum " + number_text(*schema.maximum));
            ok = false;
        }
    }
    // A pattern that did not compile has no compiled form; it is reported where it is declared.
    if (value.is_string() && schema.pattern && schema.compiled_pattern) {
        const json::string& text = value.get_string();
        if (!schema.compiled_pattern->found_in(std::string_view(text.data(), text.size()))) {
            problems.add(field, json::serialize(value) + " does not match the pattern " + *schema.pattern);
            ok = false;
        }
    }
    return ok;
}

std::optional<json::value> json_from_yaml(const Field& field, const Schema& schema, ProblemList& problems) {
    auto value = convert(field, schema, problems);
    if (!value) return std::nullopt;
    if (!check_constraints(*value, schema, field, problems)) return std::nullopt;
    return value;
}

}  // namespace skillhost::manifest::detail
