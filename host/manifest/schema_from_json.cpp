#include "manifest/schema_from_json.hpp"

#include <boost/json/array.hpp>

#include <memory>
#include <optional>

namespace skillhost::manifest {
namespace json = boost::json;
namespace {

constexpr int kMaxDepth = 8;                 // below it, a node is `any`
constexpr std::size_t kMaxProperties = 256;  // per object; the rest stay open

std::optional<SchemaType> type_named(std::string_view name) {
    if (name == "string") return SchemaType::string;
    if (name == "integer") return SchemaType::integer;
    if (name == "number") return SchemaType::number;
    if (name == "boolean") return SchemaType::boolean;
    if (name == "array") return SchemaType::array;
    if (name == "object") return SchemaType::object;
    if (name == "null") return SchemaType::null;
    return std::nullopt;
}

void read_type(const json::value& type, Schema& out) {
    if (type.is_string()) {
        if (auto named = type_named(type.get_string())) out.type = *named;
        return;
    }
    const json::array* types = type.if_array();
    if (types == nullptr) return;
    // [T, "null"] is a nullable T; any other union stays `any`.
    std::optional<SchemaType> single;
    bool null_seen = false;
    for (const json::value& item : *types) {
        const auto named = item.is_string() ? type_named(item.get_string()) : std::nullopt;
        if (!named) return;
        if (*named == SchemaType::null) {
            null_seen = true;
        } else if (single) {
            return;
        } else {
            single = named;
        }
    }
    if (single) {
        out.type = *single;
        out.nullable = null_seen;
    } else if (null_seen) {
        out.type = SchemaType::null;
    }
}

std::optional<double> number_of(const json::object& schema, std::string_view key) {
    const json::value* value = schema.if_contains(key);
    if (value == nullptr) return std::nullopt;
    if (value->is_int64()) return static_cast<double>(value->get_int64());
    if (value->is_uint64()) return static_cast<double>(value->get_uint64());
    if (value->is_double()) return value->get_double();
    return std::nullopt;
}

Schema read(const json::object& schema, int depth) {
    Schema out;
    if (depth > kMaxDepth) return out;
    if (schema.contains("anyOf") || schema.contains("oneOf") || schema.contains("allOf") || schema.contains("$ref") ||
        schema.contains("not"))
        return out;  // outside the subset: the server checks it
    if (const json::value* type = schema.if_contains("type")) read_type(*type, out);
    if (const json::value* text = schema.if_contains("description"); text != nullptr && text->is_string())
        out.description = std::string(text->get_string());
    if (const json::value* options = schema.if_contains("enum"); options != nullptr && options->is_array())
        out.enum_values.assign(options->get_array().begin(), options->get_array().end());
    if (const json::value* value = schema.if_contains("default")) out.default_value = *value;
    out.minimum = number_of(schema, "minimum");
    out.maximum = number_of(schema, "maximum");
    if (out.type == SchemaType::array) {
        if (const json::value* items = schema.if_contains("items"); items != nullptr && items->is_object())
            out.items = std::make_shared<const Schema>(read(items->get_object(), depth + 1));
    }
    if (out.type == SchemaType::object) {
        out.open = true;
        if (const json::value* more = schema.if_contains("additionalProperties"); more != nullptr && more->is_bool())
            out.open = more->get_bool();
        if (const json::value* properties = schema.if_contains("properties");
            properties != nullptr && properties->is_object()) {
            for (const auto& property : properties->get_object()) {
                if (out.properties.size() >= kMaxProperties) {
                    out.open = true;
                    break;
                }
                const json::object* sub = property.value().if_object();
                out.properties.emplace_back(std::string(property.key()),
                                            sub != nullptr ? read(*sub, depth + 1) : Schema());
            }
        }
        if (const json::value* required = schema.if_contains("required"); required != nullptr && required->is_array()) {
            for (const json::value& name : required->get_array()) {
                if (name.is_string()) out.required.emplace_back(name.get_string());
            }
        }
    }
    return out;
}

}  // namespace

Schema schema_from_json(const json::object& schema) {
    Schema out = read(schema, 0);
    out.type = SchemaType::object;  // a tool's inputSchema is an object (checked before this)
    return out;
}

}  // namespace skillhost::manifest
