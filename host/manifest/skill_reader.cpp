#include "manifest/skill_reader.hpp"

#include "manifest/identifier_text.hpp"
#include "manifest/json_from_yaml.hpp"
#include "manifest/schema_reader.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <array>

namespace skillhost::manifest::detail {

namespace {

constexpr std::array<std::string_view, 16> kSkillKeys = {
    "id",          "title",       "description", "category",          "inputs",      "outputs",
    "risk",        "cost",        "min_trust",   "requires_approval", "annotations", "timeout_ms",
    "concurrency", "path_inputs", "error_hints", "examples"};
constexpr std::array<std::string_view, 4> kAnnotationKeys = {"read_only", "destructive", "idempotent", "open_world"};
constexpr std::array<std::string_view, 2> kExampleKeys = {"description", "args"};
constexpr std::array<std::string_view, 3> kRiskNames = {"low", "medium", "high"};
constexpr std::array<std::string_view, 3> kCostNames = {"free", "cheap", "expensive"};
constexpr std::array<std::string_view, 5> kTrustNames = {"observe", "suggest", "supervised_auto", "bounded_auto",
                                                         "adaptive_auto"};
constexpr std::array<std::string_view, 2> kConcurrencyNames = {"parallel", "serial"};

constexpr std::int64_t kMaxTimeoutMs = 3'600'000;  // one hour

void read_id(const FieldMap& map, SkillSpec& skill, ProblemList& problems) {
    const Field* id = map.find("id");
    if (id == nullptr) {
        problems.add(map.self().at, map.self().path + ".id",
                     "missing required field 'id'; give the skill an id like task_list (lowercase letters, digits, _)");
        return;
    }
    auto text = read_string(*id, problems);
    if (!text) return;
    if (!is_skill_id(*text)) {
        problems.add(*id, "invalid skill id \"" + *text +
                              "\"; expected a lowercase letter followed by lowercase letters, digits or _ "
                              "(pattern ^[a-z][a-z0-9_]*$)");
        return;
    }
    skill.id = std::move(*text);
}

std::optional<Annotations> read_annotations(const Field& field, ProblemList& problems) {
    auto map = FieldMap::read(field, KeyList(kAnnotationKeys), problems);
    if (!map) return std::nullopt;
    Annotations annotations;
    const std::array<std::pair<std::string_view, bool*>, 4> flags = {{{"read_only", &annotations.read_only},
                                                                      {"destructive", &annotations.destructive},
                                                                      {"idempotent", &annotations.idempotent},
                                                                      {"open_world", &annotations.open_world}}};
    for (const auto& [key, target] : flags) {
        if (const Field* flag = map->find(key)) {
            if (auto value = read_bool(*flag, problems)) *target = *value;
        }
    }
    return annotations;
}

// A native skill's path inputs are declared string inputs.
void read_declared_path_inputs(const Field& field, SkillSpec& skill, ProblemList& problems) {
    std::vector<std::string_view> declared;
    for (const auto& [name, property] : skill.inputs.properties) declared.push_back(name);
    auto check = [&](const std::string& name) -> std::optional<std::string> {
        const Schema* input = skill.inputs.property(name);
        if (input == nullptr) {
            return "'" + name + "' is not a declared input" + did_you_mean(name, declared) +
                   (declared.empty() ? "; declare it under inputs.properties" : "; declared inputs: " + join(declared));
        }
        if (input->type != SchemaType::string) {
            return "input '" + name + "' has type " + to_string(input->type) +
                   "; a path input must be declared with type: string";
        }
        return std::nullopt;
    };
    read_path_inputs(field, skill.path_inputs, check, problems);
}

void read_error_hints(const Field& field, std::vector<ErrorHint>& hints, ProblemList& problems) {
    auto map = FieldMap::read(field, std::nullopt, problems);
    if (!map) return;
    for (const auto& [code, entry] : map->entries()) {
        if (!is_error_code(code)) {
            problems.add(entry, "invalid error code \"" + code +
                                    "\"; expected UPPER_SNAKE_CASE like the codes the skill returns (e.g. NOT_FOUND)");
            continue;
        }
        auto suggestions = read_string_list(entry, true, problems);
        if (!suggestions) continue;
        if (suggestions->empty()) {
            problems.add(entry, "expected at least one suggestion for " + code);
            continue;
        }
        bool all_written = true;
        for (const auto& suggestion : *suggestions) {
            if (suggestion.find_first_not_of(" \t\r\n") == std::string::npos) all_written = false;
        }
        if (!all_written) {
            problems.add(entry, "suggestions must not be empty; write what to try when " + code + " happens");
            continue;
        }
        hints.push_back(ErrorHint{code, std::move(*suggestions)});
    }
}

void read_examples(const Field& field, SkillSpec& skill, ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    for (const Field& item : *items) {
        auto map = FieldMap::read(item, KeyList(kExampleKeys), problems);
        if (!map) continue;
        Example example;
        if (const Field* description = map->find("description")) {
            if (auto text = read_text(*description, problems)) example.description = std::move(*text);
        }
        if (const Field* args = map->find("args")) {
            // Arguments are converted with the inputs schema, so they have the JSON types a caller sends.
            auto value = json_from_yaml(*args, skill.inputs, problems);
            if (!value) continue;
            example.args = std::move(value->as_object());
        } else if (!skill.inputs.required.empty()) {
            problems.add(item, "missing 'args'; the skill requires " + join(skill.inputs.required));
            continue;
        }
        skill.examples.push_back(std::move(example));
    }
}

}  // namespace

void read_path_inputs(const Field& field, std::vector<std::string>& path_inputs,
                      const std::function<std::optional<std::string>(const std::string&)>& check,
                      ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    for (const Field& item : *items) {
        auto name = read_string(item, problems);
        if (!name) continue;
        if (auto complaint = check(*name)) {
            problems.add(item, std::move(*complaint));
            continue;
        }
        if (std::find(path_inputs.begin(), path_inputs.end(), *name) != path_inputs.end()) {
            problems.add(item, "'" + *name + "' is listed twice; list it once");
            continue;
        }
        path_inputs.push_back(std::move(*name));
    }
}

SkillTraits read_skill_traits(const FieldMap& map, ProblemList& problems) {
    SkillTraits traits;
    const std::array<std::pair<std::string_view, std::optional<std::string>*>, 3> texts = {
        {{"title", &traits.title}, {"description", &traits.description}, {"category", &traits.category}}};
    for (const auto& [key, target] : texts) {
        if (const Field* text = map.find(key)) *target = read_text(*text, problems);
    }
    if (const Field* risk = map.find("risk")) {
        if (auto name = read_choice(*risk, kRiskNames, problems)) traits.risk = parse_risk(*name);
    }
    if (const Field* cost = map.find("cost")) {
        if (auto name = read_choice(*cost, kCostNames, problems)) traits.cost = parse_cost(*name);
    }
    if (const Field* trust = map.find("min_trust")) {
        if (auto name = read_choice(*trust, kTrustNames, problems)) traits.min_trust = parse_trust_level(*name);
    }
    if (const Field* approval = map.find("requires_approval"))
        traits.requires_approval = read_bool(*approval, problems);
    if (const Field* annotations = map.find("annotations"))
        traits.annotations = read_annotations(*annotations, problems);
    if (const Field* timeout = map.find("timeout_ms")) {
        if (auto value = read_integer(*timeout, 1, kMaxTimeoutMs, problems)) {
            traits.timeout_ms = static_cast<std::uint32_t>(*value);
        }
    }
    if (const Field* concurrency = map.find("concurrency")) {
        if (auto name = read_choice(*concurrency, kConcurrencyNames, problems)) {
            traits.concurrency = parse_concurrency(*name);
        }
    }
    if (const Field* hints = map.find("error_hints")) read_error_hints(*hints, traits.error_hints, problems);
    return traits;
}

std::optional<SkillSpec> read_skill(const Field& field, ProblemList& problems) {
    auto map = FieldMap::read(field, KeyList(kSkillKeys), problems);
    if (!map) return std::nullopt;
    SkillSpec skill;
    skill.position = field.at;
    skill.outputs.type = SchemaType::any;

    read_id(*map, skill, problems);
    SkillTraits traits = read_skill_traits(*map, problems);
    skill.title = traits.title.value_or(skill.id);
    if (traits.description) skill.description = std::move(*traits.description);
    if (map->find("description") == nullptr) {
        problems.add(field.at, field.path + ".description",
                     "missing required field 'description'; say what the skill does, for the planner and for users");
    }
    if (traits.category) skill.category = std::move(*traits.category);
    apply_behaviour(traits, skill);
    skill.annotations = traits.annotations.value_or(skill.annotations);
    skill.error_hints = std::move(traits.error_hints);

    skill.inputs.type = SchemaType::object;
    if (const Field* inputs = map->find("inputs")) {
        skill.inputs = read_schema(*inputs, SchemaRole::input_object, problems);
    }
    if (const Field* outputs = map->find("outputs")) {
        skill.outputs = read_schema(*outputs, SchemaRole::any, problems);
    }
    if (const Field* paths = map->find("path_inputs")) read_declared_path_inputs(*paths, skill, problems);
    if (const Field* examples = map->find("examples")) read_examples(*examples, skill, problems);
    return skill;
}

}  // namespace skillhost::manifest::detail
