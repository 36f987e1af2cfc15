#include "manifest/schema.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace skillhost::manifest {

const char* to_string(SchemaType type) {
    switch (type) {
        case SchemaType::any: return "any";
        case SchemaType::string: return "string";
        case SchemaType::integer: return "integer";
        case SchemaType::number: return "number";
        case SchemaType::boolean: return "boolean";
        case SchemaType::array: return "array";
        case SchemaType::object: return "object";
        case SchemaType::null: return "null";
    }
    return "any";
}

Schema::Schema() = default;
Schema::~Schema() = default;
Schema::Schema(const Schema&) = default;
Schema::Schema(Schema&&) noexcept = default;
Schema& Schema::operator=(const Schema&) = default;
Schema& Schema::operator=(Schema&&) noexcept = default;

const Schema* Schema::property(std::string_view name) const {
    for (const auto& [key, schema] : properties) {
        if (key == name) return &schema;
    }
    return nullptr;
}

bool Schema::is_required(std::string_view name) const {
    return std::find(required.begin(), required.end(), name) != required.end();
}

namespace {

// Bounds are stored as doubles; whole ones are written as JSON integers ("minimum": 1, not 1e0),
// which is what people and models expect to read.
boost::json::value bound_value(double bound) {
    constexpr double exact_limit = 9007199254740992.0;  // 2^53: every whole double below is exact
    if (std::floor(bound) == bound && std::fabs(bound) <= exact_limit) {
        return static_cast<std::int64_t>(bound);
    }
    return bound;
}

}  // namespace

boost::json::object Schema::to_json_schema(bool closed_objects) const {
    boost::json::object out;
    if (!ref.empty()) {
        out["$ref"] = ref;
        if (!description.empty()) out["description"] = description;
        return out;
    }
    if (!dialect.empty()) out["$schema"] = dialect;
    if (type != SchemaType::any && nullable && type != SchemaType::null) {
        out["type"] = boost::json::array{to_string(type), "null"};
    } else if (type != SchemaType::any) {
        out["type"] = to_string(type);
    }
    if (!description.empty()) out["description"] = description;
    if (!enum_values.empty()) {
        boost::json::array options;
        for (const auto& option : enum_values) options.push_back(option);
        // JSON Schema checks enum apart from type: a nullable enum must list null to accept it.
        if (nullable && std::none_of(options.begin(), options.end(), [](const auto& v) { return v.is_null(); }))
            options.emplace_back(nullptr);
        out["enum"] = std::move(options);
    }
    if (default_value) out["default"] = *default_value;
    if (minimum) out["minimum"] = bound_value(*minimum);
    if (maximum) out["maximum"] = bound_value(*maximum);
    if (pattern) out["pattern"] = *pattern;
    if (type == SchemaType::array && items) out["items"] = items->to_json_schema(closed_objects);
    if (type == SchemaType::object) {
        boost::json::object props;
        for (const auto& [name, schema] : properties) props[name] = schema.to_json_schema(closed_objects);
        out["properties"] = std::move(props);
        if (!required.empty()) {
            boost::json::array names;
            for (const auto& name : required) names.emplace_back(name);
            out["required"] = std::move(names);
        }
        if (closed_objects && !open) out["additionalProperties"] = false;
    }
    if (!definitions.empty()) {
        boost::json::object defs;
        for (const auto& [name, schema] : definitions) defs[name] = schema.to_json_schema(closed_objects);
        out["$defs"] = std::move(defs);
    }
    return out;
}

}  // namespace skillhost::manifest
