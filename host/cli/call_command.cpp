// `skillhost call SKILL [--args JSON] [--user U] [--json]`: one skill through the executor.
#include "base/json_text.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "cli/error_codes.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

struct CallArgs {
    std::string skill;
    std::string args = "{}";
    std::string user;
    bool json = false;
};

std::string_view string_field(const boost::json::object& object, std::string_view key) {
    const boost::json::value* v = object.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// Bytes that base64 `text` decodes to (the padding '=' carries none).
std::size_t decoded_size(std::string_view text) {
    if (text.size() < 4) return 0;
    std::size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
    return text.size() / 4 * 3 - padding;
}

// The skill's content items ("skillhost.content/1") after its result: text as it is, binary
// content as a line naming its type and size (a terminal cannot show an image).
void print_content(const boost::json::array& items) {
    for (const auto& value : items) {
        const boost::json::object* item = value.if_object();
        if (!item) continue;
        const std::string_view type = string_field(*item, "type");
        if (type == "text") {
            std::cout << string_field(*item, "text") << "\n";
        } else if (type == "image" || type == "audio") {
            std::cout << "[" << type << " " << string_field(*item, "mimeType") << ", "
                      << decoded_size(string_field(*item, "data")) << " bytes]\n";
        } else if (type == "resource_link") {
            std::cout << "[link " << string_field(*item, "name") << "] " << string_field(*item, "uri") << "\n";
        } else if (const boost::json::value* r = item->if_contains("resource"); r && r->is_object()) {
            const auto& resource = r->get_object();
            std::cout << "[resource " << string_field(resource, "uri") << "]\n";
            if (resource.contains("text"))
                std::cout << string_field(resource, "text") << "\n";
            else
                std::cout << "(" << decoded_size(string_field(resource, "blob")) << " bytes)\n";
        }
    }
}

int run_call(CliContext& ctx, const CallArgs& a) {
    boost::json::value args;
    std::string problem;
    if (!parse_json(a.args, args, problem)) {
        Error e{errors::kInvalidArgsJson,
                "--args is not valid JSON: " + problem,
                {},
                {"quote the JSON for your shell, e.g. --args '{\"path\":\"README.md\"}'"}};
        e.details["args"] = a.args;
        return fail_setup(e, a.json);
    }
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), a.json);
    HostRuntime& host = *rt.value();
    auto user = host.user(a.user);
    if (!user) return fail_setup(user.error(), a.json);
    exec::CallRequest request;
    request.skill_id = a.skill;
    request.args = std::move(args);
    request.user = user.value();
    exec::CallOutcome outcome = host.calls().call(*host.snapshot(), request);
    const exec::SkillResult& result = outcome.result;
    if (a.json) {
        print_json(result.to_json());
        return result.ok ? kExitOk : exit_code_for(result.error.kind());
    }
    if (!result.ok) {
        print_error(result.error);
        if (outcome.elicitation_id) print_pending_question(host, user.value(), *outcome.elicitation_id);
        return exit_code_for(result.error.kind());
    }
    print_json(result.output);
    print_content(result.content);
    return kExitOk;
}

}  // namespace

void register_call_command(CLI::App& app, CliContext& ctx) {
    auto a = std::make_shared<CallArgs>();
    auto* call = app.add_subcommand(
        "call", "Run one skill as a user: argument validation, policy (mode, rules, trust, approval), timeout");
    call->add_option("SKILL", a->skill, "Skill id, e.g. task_list")->required();
    call->add_option("--args", a->args, "Arguments as a JSON object")->capture_default_str();
    call->add_option("--user", a->user, "Act as this user (default: the configured default user)");
    call->add_flag("--json", a->json, "Print {ok, result | error} as JSON");
    ctx.add_global_options(*call);
    call->footer(
        "Example: skillhost call fs_read --args '{\"path\":\"README.md\"}'\n"
        "A call that needs approval exits 1 with APPROVAL_REQUIRED and the approval id;\n"
        "run `skillhost approvals approve ID` to run it.\n"
        "A skill that asks you something exits 1 with ELICITATION_REQUIRED and the question;\n"
        "answer it with `skillhost elicitations answer ID --field NAME=VALUE` and it runs again.");
    call->callback([&ctx, a] { ctx.exit_code = run_call(ctx, *a); });
}

}  // namespace skillhost::cli
