#include "exec/playbook_prompts.hpp"

#include <boost/json/parse.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <vector>

namespace skillhost::exec {

namespace json = boost::json;

namespace {

constexpr std::string_view kPrefix = "playbook_";

// A recorded step, "<skill> <arguments as JSON>" (operator_resume.cpp), may run for `user` now:
// the skill is one of `visible`, its arguments are an object, and the user's rules do not deny it.
bool step_allowed(const CallPipeline& pipeline, const std::vector<const catalog::CatalogEntry*>& visible,
                  const auth::UserContext& user, std::string_view step) {
    const auto space = step.find(' ');
    const std::string_view skill = step.substr(0, space);
    json::value args = json::object();
    if (space != std::string_view::npos) {
        boost::system::error_code ec;
        args = json::parse(step.substr(space + 1), ec);
        if (ec || !args.is_object()) return false;
    }
    for (const catalog::CatalogEntry* entry : visible)
        if (entry->spec->id == skill) return !pipeline.parts().policy->decide(user, *entry->spec, args).denied();
    return false;
}

// The user's newest playbooks whose every step they may still call.
std::vector<store::Playbook> published(const CallPipeline& pipeline, const catalog::CatalogSnapshot& catalog,
                                       const auth::UserContext& asked, const store::GuidanceStore& playbooks) {
    const auth::UserContext user = pipeline.current_user(asked);
    auto page = playbooks.list_playbooks(user.user_id, kMaxPlaybookPrompts);
    std::vector<store::Playbook> out;
    if (!page) {
        spdlog::warn("playbooks of user {} not published as prompts: {}: {}", user.user_id, page.error().code,
                     page.error().message);
        return out;
    }
    const auto visible = pipeline.visible_entries(catalog, user);
    for (store::Playbook& playbook : page->playbooks) {
        const bool allowed = std::all_of(playbook.steps.begin(), playbook.steps.end(), [&](const std::string& step) {
            return step_allowed(pipeline, visible, user, step);
        });
        if (allowed) out.push_back(std::move(playbook));
    }
    return out;
}

std::string prompt_name(const store::Playbook& playbook) {
    return std::string(kPrefix) + playbook.id;
}

}  // namespace

json::array playbook_prompts(const CallPipeline& pipeline, const catalog::CatalogSnapshot& catalog,
                             const auth::UserContext& user, const store::GuidanceStore& playbooks) {
    json::array out;
    for (const store::Playbook& playbook : published(pipeline, catalog, user, playbooks))
        out.push_back(json::object{{"name", prompt_name(playbook)},
                                   {"title", "Playbook: " + playbook.goal},
                                   {"description", "What worked before for \"" + playbook.goal + "\""},
                                   {"arguments", json::array()}});
    return out;
}

std::optional<json::object> render_playbook(const CallPipeline& pipeline, const catalog::CatalogSnapshot& catalog,
                                            const auth::UserContext& user, const store::GuidanceStore& playbooks,
                                            std::string_view name) {
    if (!name.starts_with(kPrefix)) return std::nullopt;
    for (const store::Playbook& playbook : published(pipeline, catalog, user, playbooks)) {
        if (prompt_name(playbook) != name) continue;
        std::string text = "For a goal like \"" + playbook.goal + "\", the user advised: " + playbook.guidance;
        if (!playbook.steps.empty()) {
            text += "\nThese tool calls worked then:";
            for (const std::string& step : playbook.steps) text += "\n- " + step;
        }
        json::object content{{"type", "text"}, {"text", std::move(text)}};
        return json::object{{"description", "What worked before for \"" + playbook.goal + "\""},
                            {"messages", json::array{json::object{{"role", "user"}, {"content", std::move(content)}}}}};
    }
    return std::nullopt;
}

}  // namespace skillhost::exec
