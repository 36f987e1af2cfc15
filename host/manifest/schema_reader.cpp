#include "manifest/schema_reader.hpp"

#include "manifest/json_from_yaml.hpp"

#include <algorithm>
#include <array>
#include <memory>

namespace skillhost::manifest::detail {

namespace {

constexpr std::array<std::string_view, 11> kSchemaKeys = {"type",    "nullable", "description", "required",
                                                          "default", "enum",     "minimum",     "maximum",
                                                          "pattern", "items",    "properties"};
constexpr std::array<std::string_view, 7> kTypeNames = {"string", "integer", "number", "boolean",
                                                        "array",  "object",  "null"};

SchemaType type_from_name(std::string_view name) {
    for (SchemaType type : {SchemaType::string, SchemaType::integer, SchemaType::number, SchemaType::boolean,
                            SchemaType::array, SchemaType::object, SchemaType::null}) {
        if (name == to_string(type)) return type;
    }
    return SchemaType::any;
}

// `type: [T, "null"]` (in either order): T, and the value may be null. Other unions are not part of
// the subset, since a host and its clients must agree on what every field holds.
SchemaType declared_union(const Field& type, bool& nullable, ProblemList& problems) {
    const std::string wrong =
        "a list of types must be one type and \"null\", e.g. [string, \"null\"] for a string "
        "that may be missing; got ";
    auto items = read_list(type, problems);
    if (!items) return SchemaType::any;
    std::vector<std::string> names;
    for (const Field& item : *items) {
        auto name = read_choice(item, kTypeNames, problems);
        if (!name) return SchemaType::any;
        names.push_back(std::move(*name));
    }
    const bool one_and_null = names.size() == 2 && (names[0] == "null") != (names[1] == "null");
    if (!one_and_null) {
        problems.add(type, wrong + "[" + join(names) + "]");
        return SchemaType::any;
    }
    nullable = true;
    return type_from_name(names[0] == "null" ? names[1] : names[0]);
}

SchemaType declared_type(const FieldMap& map, SchemaRole role, bool& nullable, ProblemList& problems) {
    if (const Field* type = map.find("type")) {
        if (type->value.IsSequence()) return declared_union(*type, nullable, problems);
        const auto name = read_choice(*type, kTypeNames, problems);
        return name ? type_from_name(*name) : SchemaType::any;
    }
    // Without `type`, the keywords used say what the schema is.
    if (role == SchemaRole::input_object || map.find("properties") || map.find("required")) return SchemaType::object;
    if (map.find("items")) return SchemaType::array;
    return SchemaType::any;
}

// Keywords that only make sense for some types; using them elsewhere is a mistake worth naming.
void check_keyword_fits_type(const FieldMap& map, std::string_view keyword, std::initializer_list<SchemaType> types,
                             SchemaType type, ProblemList& problems) {
    const Field* field = map.find(keyword);
    if (field == nullptr || type == SchemaType::any) return;
    for (SchemaType allowed : types) {
        if (allowed == type) return;
    }
    std::string expected;
    for (SchemaType allowed : types) {
        if (!expected.empty()) expected += " and ";
        expected += to_string(allowed);
    }
    problems.add(*field, "'" + std::string(keyword) + "' applies only to " + expected +
                             " schemas, but this schema's type is " + to_string(type));
}

void read_properties(const Field& field, Schema& schema, ProblemList& problems) {
    auto map = FieldMap::read(field, std::nullopt, problems);
    if (!map) return;
    for (const auto& [name, entry] : map->entries()) {
        if (name.empty()) {
            problems.add(entry, "property names must not be empty");
            continue;
        }
        schema.properties.emplace_back(name, read_schema(entry, SchemaRole::any, problems));
    }
}

void read_required(const Field& field, Schema& schema, ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    std::vector<std::string_view> declared;
    for (const auto& [name, property] : schema.properties) declared.push_back(name);
    for (const Field& item : *items) {
        auto name = read_string(item, problems);
        if (!name) continue;
        if (schema.property(*name) == nullptr) {
            problems.add(
                item,
                "'" + *name + "' is required but not declared under properties" + did_you_mean(*name, declared) +
                    (declared.empty() ? "; declare it under properties" : "; declared properties: " + join(declared)));
            continue;
        }
        if (schema.is_required(*name)) {
            problems.add(item, "'" + *name + "' is listed twice; list it once");
            continue;
        }
        schema.required.push_back(std::move(*name));
    }
}

void read_pattern(const Field& field, Schema& schema, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return;
    auto compiled = Pattern::compile(*text);
    if (!compiled) {
        problems.add(field,
                     "invalid regular expression \"" + text->substr(0, 200) + "\": " + compiled.error().message +
                         "; write a regex in RE2 syntax (JavaScript-style without lookaround or backreferences)");
        return;
    }
    schema.compiled_pattern = std::move(compiled.value());
    schema.pattern = std::move(*text);
}

void read_enum(const Field& field, Schema& schema, ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    if (items->empty()) {
        problems.add(field, "enum must list at least one allowed value");
        return;
    }
    // Each value is checked against the type and bounds, but not against the enum being built.
    Schema value_schema = schema;
    value_schema.enum_values.clear();
    value_schema.default_value.reset();
    for (const Field& item : *items) {
        auto value = json_from_yaml(item, value_schema, problems);
        if (!value) continue;
        if (std::find(schema.enum_values.begin(), schema.enum_values.end(), *value) != schema.enum_values.end()) {
            problems.add(item, "value is listed twice; list it once");
            continue;
        }
        schema.enum_values.push_back(std::move(*value));
    }
}

}  // namespace

Schema read_schema(const Field& field, SchemaRole role, ProblemList& problems) {
    Schema schema;
    if (role == SchemaRole::input_object) schema.type = SchemaType::object;
    // `name: string` instead of `name: {type: string}` is the most common slip; say how to fix it.
    if (field.value.IsScalar() &&
        std::find(kTypeNames.begin(), kTypeNames.end(), field.value.Scalar()) != kTypeNames.end()) {
        problems.add(field, "expected a schema mapping, got the bare type name \"" + field.value.Scalar() +
                                "\"; write {type: " + field.value.Scalar() + "}");
        return schema;
    }
    auto map = FieldMap::read(field, KeyList(kSchemaKeys), problems);
    if (!map) return schema;

    schema.type = declared_type(*map, role, schema.nullable, problems);
    if (const Field* nullable = map->find("nullable")) {
        if (auto flag = read_bool(*nullable, problems)) schema.nullable = schema.nullable || *flag;
    }
    if (role == SchemaRole::input_object && schema.type != SchemaType::object) {
        if (const Field* type = map->find("type"); type && schema.type != SchemaType::any) {
            problems.add(*type, std::string("inputs must be an object schema, got type ") + to_string(schema.type) +
                                    "; declare each argument under properties");
        }
        schema.type = SchemaType::object;
    }
    check_keyword_fits_type(*map, "properties", {SchemaType::object}, schema.type, problems);
    check_keyword_fits_type(*map, "required", {SchemaType::object}, schema.type, problems);
    check_keyword_fits_type(*map, "items", {SchemaType::array}, schema.type, problems);
    check_keyword_fits_type(*map, "minimum", {SchemaType::integer, SchemaType::number}, schema.type, problems);
    check_keyword_fits_type(*map, "maximum", {SchemaType::integer, SchemaType::number}, schema.type, problems);
    check_keyword_fits_type(*map, "pattern", {SchemaType::string}, schema.type, problems);

    if (const Field* description = map->find("description")) {
        if (auto text = read_string(*description, problems)) schema.description = std::move(*text);
    }
    if (const Field* properties = map->find("properties")) read_properties(*properties, schema, problems);
    if (const Field* required = map->find("required")) read_required(*required, schema, problems);
    if (const Field* items = map->find("items")) {
        schema.items = std::make_shared<const Schema>(read_schema(*items, SchemaRole::any, problems));
    }
    if (const Field* minimum = map->find("minimum")) schema.minimum = read_number(*minimum, problems);
    if (const Field* maximum = map->find("maximum")) {
        schema.maximum = read_number(*maximum, problems);
        if (schema.minimum && schema.maximum && *schema.minimum > *schema.maximum) {
            problems.add(*maximum, "maximum is below minimum; make maximum at least minimum");
            schema.maximum.reset();
        }
    }
    if (const Field* pattern = map->find("pattern")) read_pattern(*pattern, schema, problems);
    // enum and default are read last: they are checked against everything above.
    if (const Field* options = map->find("enum")) read_enum(*options, schema, problems);
    if (const Field* fallback = map->find("default")) {
        schema.default_value = json_from_yaml(*fallback, schema, problems);
    }
    return schema;
}

}  // namespace skillhost::manifest::detail
