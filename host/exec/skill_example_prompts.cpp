#include "exec/skill_example_prompts.hpp"

#include <boost/json/serialize.hpp>

#include <string>
#include <vector>

namespace skillhost::exec {

namespace json = boost::json;

namespace {

constexpr std::string_view kInfix = "_example_";

// The skills `user` may see and whose calls their rules do not deny (one needing approval counts:
// the example only suggests the call).
std::vector<const catalog::CatalogEntry*> usable_entries(const CallPipeline& pipeline,
                                                         const catalog::CatalogSnapshot& catalog,
                                                         const auth::UserContext& user) {
    std::vector<const catalog::CatalogEntry*> out;
    for (const catalog::CatalogEntry* entry : pipeline.visible_entries(catalog, user))
        if (!entry->spec->examples.empty() &&
            !pipeline.parts().policy->decide(pipeline.current_user(user), *entry->spec, json::object()).denied())
            out.push_back(entry);
    return out;
}

std::string example_name(const manifest::SkillSpec& spec, std::size_t index) {
    return spec.id + std::string(kInfix) + std::to_string(index + 1);
}

}  // namespace

json::array skill_example_prompts(const CallPipeline& pipeline, const catalog::CatalogSnapshot& catalog,
                                  const auth::UserContext& user) {
    json::array out;
    for (const catalog::CatalogEntry* entry : usable_entries(pipeline, catalog, user)) {
        const manifest::SkillSpec& spec = *entry->spec;
        for (std::size_t i = 0; i < spec.examples.size(); ++i)
            out.push_back(json::object{{"name", example_name(spec, i)},
                                       {"title", spec.title.empty() ? spec.id : spec.title},
                                       {"description", "Example of " + spec.id + ": " + spec.examples[i].description},
                                       {"arguments", json::array()}});
    }
    return out;
}

std::optional<json::object> render_skill_example(const CallPipeline& pipeline, const catalog::CatalogSnapshot& catalog,
                                                 const auth::UserContext& user, std::string_view name) {
    const auto at = name.rfind(kInfix);
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view skill = name.substr(0, at);
    for (const catalog::CatalogEntry* entry : usable_entries(pipeline, catalog, user)) {
        const manifest::SkillSpec& spec = *entry->spec;
        if (spec.id != skill) continue;
        for (std::size_t i = 0; i < spec.examples.size(); ++i) {
            if (example_name(spec, i) != name) continue;
            const manifest::Example& example = spec.examples[i];
            std::string text = example.description + ": call the tool `" + spec.id + "` with the arguments " +
                               json::serialize(example.args) + ".";
            json::object content{{"type", "text"}, {"text", std::move(text)}};
            return json::object{
                {"description", example.description},
                {"messages", json::array{json::object{{"role", "user"}, {"content", std::move(content)}}}}};
        }
    }
    return std::nullopt;
}

}  // namespace skillhost::exec
