// list_changed between reloads: after the session's calls, what the client listed is listed again
// and compared (resources by uri, prompts by name). A memory stored or a playbook learned during
// the session shows up as one notifications/resources/list_changed or prompts/list_changed, which
// initialize declared (listChanged). Reloads are on_resources_update / on_prompts_update.
#include "mcp/json_rpc.hpp"
#include "mcp/mcp_session.hpp"

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

std::string listing_keys(const json::array& items, std::string_view key) {
    std::string out;
    for (const auto& item : items) {
        const auto* o = item.if_object();
        const auto* v = o ? o->if_contains(key) : nullptr;
        if (v && v->is_string()) out.append(v->as_string().data(), v->as_string().size()).push_back('\n');
    }
    return out;
}

}  // namespace

void McpSession::remember_listed(std::optional<std::string>& listed, const json::array& items, std::string_view key) {
    std::string keys = listing_keys(items, key);
    std::lock_guard lock(listed_mutex_);
    listed = std::move(keys);
}

void McpSession::look_for_list_changes() {
    bool resources = false, prompts = false;
    {
        std::lock_guard lock(listed_mutex_);
        resources = listed_resources_.has_value();
        prompts = listed_prompts_.has_value();
    }
    const auto snapshot = catalog_.snapshot();
    // Listed outside the lock (plugins answer within their deadline); compared and replaced under it.
    std::optional<std::string> now_resources, now_prompts;
    if (resources) now_resources = listing_keys(resources_.list(*snapshot, user_), "uri");
    if (prompts) now_prompts = listing_keys(prompts_.list(*snapshot, user_), "name");
    bool resources_changed = false, prompts_changed = false;
    {
        std::lock_guard lock(listed_mutex_);
        if (now_resources && listed_resources_ && *now_resources != *listed_resources_) {
            listed_resources_ = std::move(now_resources);
            resources_changed = true;
        }
        if (now_prompts && listed_prompts_ && *now_prompts != *listed_prompts_) {
            listed_prompts_ = std::move(now_prompts);
            prompts_changed = true;
        }
    }
    if (resources_changed) send(make_notification("notifications/resources/list_changed", json::object()));
    if (prompts_changed) send(make_notification("notifications/prompts/list_changed", json::object()));
}

}  // namespace skillhost::mcp
