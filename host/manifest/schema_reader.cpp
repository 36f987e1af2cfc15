#include "manifest/schema_reader.hpp"

#include "manifest/json_from_yaml.hpp"

#include <algorithm>
#include <array>
#include <memory>

namespace skillhost::manifest::detail {

namespace {

constexpr std::array<std::string_view, 14> kSchemaKeys = {
    "type",    "nullable", "description", "required",   "default", "enum",  "minimum",
    "maximum", "pattern",  "items",       "properties", "$schema", "$defs", "$ref"};
// The one dialect the host validates with; `$schema` may say so, for clients that check it.
constexpr std::string_view kDialect = "https://json-schema.org/draft/2020-12/schema";
constexpr std::string_view kDefsPrefix = "#/$defs/";
// Copies made for `$ref` are bounded by these (definitions cannot refer to one another).
constexpr std::size_t kMaxDefinitions = 64;
constexpr std::size_t kMaxReferences = 256;

// What the nodes of one root schema share while it is read: its `$defs` and how often they are used.
struct ReadContext {
    const std::vector<std::pair<std::string, Schema>>* definitions = nullptr;
    std::size_t references = 0;
    bool in_definition = false;
};

Schema read_node(const Field& field, SchemaRole role, ProblemList& problems, ReadContext& context, bool root);
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

void read_properties(const Field& field, Schema& schema, ProblemList& problems, ReadContext& context) {
    auto map = FieldMap::read(field, std::nullopt, problems);
    if (!map) return;
    for (const auto& [name, entry] : map->entries()) {
        if (name.empty()) {
            problems.add(entry, "property names must not be empty");
            continue;
        }
        schema.properties.emplace_back(name, read_node(entry, SchemaRole::any, problems, context, false));
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

void read_dialect(const Field& field, Schema& schema, ProblemList& problems, bool root) {
    if (!root) {
        problems.add(field, "$schema belongs at the top of inputs or outputs, not inside a property");
        return;
    }
    auto text = read_string(field, problems);
    if (!text) return;
    if (*text != kDialect) {
        problems.add(field, "$schema \"" + text->substr(0, 200) +
                                "\" is not a dialect the host validates with; write " + std::string(kDialect) +
                                " or leave $schema out");
        return;
    }
    schema.dialect = std::move(*text);
}

void read_definitions(const Field& field, Schema& schema, ProblemList& problems, ReadContext& context, bool root) {
    if (!root) {
        problems.add(field, "$defs belongs at the top of inputs or outputs, not inside a property");
        return;
    }
    auto map = FieldMap::read(field, std::nullopt, problems);
    if (!map) return;
    if (map->entries().size() > kMaxDefinitions) {
        problems.add(field, "$defs has " + std::to_string(map->entries().size()) + " definitions, more than " +
                                std::to_string(kMaxDefinitions) + "; share fewer shapes or inline them");
        return;
    }
    context.in_definition = true;
    for (const auto& [name, entry] : map->entries()) {
        if (name.empty() || name.find_first_of("/~") != std::string::npos) {
            problems.add(entry, "a definition name must be non-empty and hold no '/' or '~'");
            continue;
        }
        schema.definitions.emplace_back(name, read_node(entry, SchemaRole::any, problems, context, false));
    }
    context.in_definition = false;
    context.definitions = &schema.definitions;
}

// `$ref: "#/$defs/NAME"` (with at most a description beside it): a copy of that definition, which
// renders as the reference again. Definitions may not refer to each other, so copies cannot nest.
Schema read_reference(const FieldMap& map, ProblemList& problems, ReadContext& context, bool root) {
    Schema schema;
    const Field& ref = *map.find("$ref");
    for (const auto& [key, entry] : map.entries())
        if (key != "$ref" && key != "description")
            problems.add(entry, "'" + key + "' cannot stand beside $ref; put it in the definition");
    if (root) {
        problems.add(ref, "$ref cannot be the whole of inputs or outputs; use it for a property or items");
        return schema;
    }
    if (context.in_definition) {
        problems.add(ref, "a $defs entry cannot use $ref; definitions may not refer to each other");
        return schema;
    }
    auto text = read_string(ref, problems);
    if (!text) return schema;
    if (++context.references > kMaxReferences) {
        problems.add(ref, "more than " + std::to_string(kMaxReferences) + " uses of $ref in one schema");
        return schema;
    }
    std::vector<std::string> names;
    if (context.definitions)
        for (const auto& [name, definition] : *context.definitions) {
            if (kDefsPrefix.size() + name.size() == text->size() && text->rfind(kDefsPrefix, 0) == 0 &&
                text->compare(kDefsPrefix.size(), std::string::npos, name) == 0) {
                schema = definition;
                schema.ref = std::move(*text);
                if (const Field* description = map.find("description"))
                    if (auto words = read_string(*description, problems)) schema.description = std::move(*words);
                return schema;
            }
            names.push_back(std::string(kDefsPrefix) + name);
        }
    problems.add(ref, "$ref \"" + text->substr(0, 200) + "\" names no definition of this schema's $defs" +
                          (names.empty() ? "; declare it under $defs at the top" : "; defined: " + join(names)));
    return schema;
}

Schema read_node(const Field& field, SchemaRole role, ProblemList& problems, ReadContext& context, bool root) {
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
    if (map->find("$ref")) return read_reference(*map, problems, context, root);
    if (const Field* dialect = map->find("$schema")) read_dialect(*dialect, schema, problems, root);
    // Definitions first: the properties below may refer to them.
    if (const Field* definitions = map->find("$defs")) read_definitions(*definitions, schema, problems, context, root);

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
    if (const Field* properties = map->find("properties")) read_properties(*properties, schema, problems, context);
    if (const Field* required = map->find("required")) read_required(*required, schema, problems);
    if (const Field* items = map->find("items")) {
        schema.items = std::make_shared<const Schema>(read_node(*items, SchemaRole::any, problems, context, false));
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

}  // namespace

Schema read_schema(const Field& field, SchemaRole role, ProblemList& problems) {
    ReadContext context;
    return read_node(field, role, problems, context, true);
}

}  // namespace skillhost::manifest::detail
