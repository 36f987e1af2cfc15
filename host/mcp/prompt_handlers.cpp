// prompts/list, prompts/get and completion/complete: what exec::PromptAccess returns for the
// session's user, in MCP's shapes. Like a resource read, a prompt runs on the thread that handed the
// request in (plugins answer within PromptAccess's deadline); it is not a tool call.
#include "mcp/json_rpc.hpp"
#include "mcp/list_page.hpp"
#include "mcp/mcp_session.hpp"
#include "mcp/rpc_error.hpp"

#include <optional>

namespace skillhost::mcp {

namespace json = boost::json;

void McpSession::on_prompts_list(const json::value& id, const json::value& params) {
    std::optional<std::string> cursor;
    if (!read_cursor(params, cursor))
        return send(make_error(id, rpc_code::invalid_params,
                               "params.cursor must be a string (a nextCursor from prompts/list)"));
    auto snapshot = catalog_.snapshot();
    json::array listed = prompts_.list(*snapshot, user_);
    remember_listed(listed_prompts_, listed, "name");
    send(make_result(id, page_of(std::move(listed), "name", "prompts", cursor, options_.page_size)));
}

void McpSession::on_prompts_get(const json::value& id, const json::value& params) {
    const json::object* p = params.if_object();
    const json::value* name = p ? p->if_contains("name") : nullptr;
    if (!name || !name->is_string())
        return send(
            make_error(id, rpc_code::invalid_params, "prompts/get needs params.name, a name from prompts/list"));
    const json::value* arguments = p->if_contains("arguments");
    if (arguments && !arguments->is_null() && !arguments->is_object())
        return send(make_error(id, rpc_code::invalid_params,
                               "params.arguments must be an object mapping argument names to strings"));
    const json::object none;
    auto snapshot = catalog_.snapshot();
    auto rendered = prompts_.get(*snapshot, user_, name->get_string(),
                                 arguments && arguments->is_object() ? arguments->get_object() : none);
    if (!rendered) return send(rpc_error(id, rendered.error()));
    send(make_result(id, std::move(*rendered)));
}

void McpSession::on_complete(const json::value& id, const json::value& params) {
    const json::object* p = params.if_object();
    if (!p)
        return send(make_error(id, rpc_code::invalid_params, "completion/complete needs params with ref and argument"));
    auto snapshot = catalog_.snapshot();
    auto completion = prompts_.complete(*snapshot, user_, *p);
    if (!completion) return send(rpc_error(id, completion.error()));
    send(make_result(id, json::object{{"completion", std::move(*completion)}}));
}

void McpSession::on_prompts_update(const catalog::CatalogSnapshot& snapshot) {
    std::string fingerprint = prompts_.source_fingerprint(snapshot, user_);
    {
        std::lock_guard lock(prompts_mutex_);
        if (fingerprint == prompt_fingerprint_) return;
        prompt_fingerprint_ = std::move(fingerprint);
    }
    if (!initialize_answered_.load()) return;
    send(make_notification("notifications/prompts/list_changed", json::object()));
}

}  // namespace skillhost::mcp
