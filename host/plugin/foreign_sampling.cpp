#include "plugin/foreign_sampling.hpp"

#include "plugin/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <system_error>

namespace skillhost::plugin {
namespace json = boost::json;
namespace {

Error invalid(std::string what) {
    return Error{errors::kContentInvalid, "the sampling request " + std::move(what) +
                                              "; skillhost answers text messages of role user or assistant only"};
}

}  // namespace

Result<std::string> completion_request_from_sampling(const json::value& params) {
    const json::object* object = params.if_object();
    const json::value* messages = object != nullptr ? object->if_contains("messages") : nullptr;
    if (messages == nullptr || !messages->is_array() || messages->get_array().empty())
        return invalid("has no messages");
    json::array out;
    if (const json::value* system = object->if_contains("systemPrompt"); system != nullptr && system->is_string())
        out.push_back(json::object{{"role", "system"}, {"content", system->get_string()}});
    for (const json::value& item : messages->get_array()) {
        const json::object* message = item.if_object();
        const json::value* role = message != nullptr ? message->if_contains("role") : nullptr;
        const json::value* content = message != nullptr ? message->if_contains("content") : nullptr;
        if (role == nullptr || !role->is_string() ||
            (role->get_string() != "user" && role->get_string() != "assistant"))
            return invalid("has a message whose role is not user or assistant");
        const json::object* block = content != nullptr ? content->if_object() : nullptr;
        const json::value* type = block != nullptr ? block->if_contains("type") : nullptr;
        const json::value* text = block != nullptr ? block->if_contains("text") : nullptr;
        if (type == nullptr || !type->is_string() || type->get_string() != "text" || text == nullptr ||
            !text->is_string())
            return invalid("has a message that is not text");
        out.push_back(json::object{{"role", role->get_string()}, {"content", text->get_string()}});
    }
    json::object request{{"messages", std::move(out)}};
    if (const json::value* max = object->if_contains("maxTokens");
        max != nullptr && max->is_int64() && max->get_int64() > 0)
        request["max_tokens"] = max->get_int64();
    return json::serialize(request);
}

void ForeignSampling::answer(const json::value& params, upstream::Responder respond) {
    if (!allowed_) {
        return respond(Error{errors::kLlmNotPermitted,
                             "MCP server '" + server_ +
                                 "' asked for sampling, which its declaration does not grant; add "
                                 "`permissions: {llm: true}` to it if the server may use the host's models"});
    }
    if (!completions_) {
        return respond(Error{errors::kLlmFailed, "no model answers sampling in this host"});
    }
    auto request = completion_request_from_sampling(params);
    if (!request) return respond(request.error());
    if (running_.fetch_add(1) >= kMaxSamplings) {
        running_.fetch_sub(1);
        return respond(Error{errors::kTooManyHostRequests, "MCP server '" + server_ + "' already has " +
                                                               std::to_string(kMaxSamplings) +
                                                               " sampling requests running; wait for one to end"});
    }
    try {
        threads_.start([this, respond, request = std::move(request.value())] {
            auto completion = completions_->complete(CompletionOrigin{user_id_, ""}, "persona", request);
            running_.fetch_sub(1);
            if (!completion) return respond(completion.error());
            std::error_code ec;
            const json::value answer = json::parse(completion.value(), ec);
            const json::value* content =
                !ec && answer.is_object() ? answer.as_object().if_contains("content") : nullptr;
            if (content == nullptr || !content->is_string())
                return respond(Error{errors::kLlmFailed, "the model's answer had no text"});
            json::object result{{"role", "assistant"},
                                {"content", json::object{{"type", "text"}, {"text", content->get_string()}}},
                                {"stopReason", "endTurn"}};
            if (const json::value* model = answer.as_object().if_contains("model"); model != nullptr)
                result["model"] = *model;
            respond(json::value(std::move(result)));
        });
    } catch (const std::system_error& e) {
        running_.fetch_sub(1);
        respond(Error{errors::kLlmFailed, std::string("no thread for the sampling request: ") + e.what()});
    }
}

}  // namespace skillhost::plugin
