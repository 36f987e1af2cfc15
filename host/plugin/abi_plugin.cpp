#include "plugin/abi_plugin.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/abi_strings.hpp"
#include "plugin/descriptor_view.hpp"
#include "plugin/host_services.hpp"
#include "plugin/result_capture.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <exception>
#include <system_error>
#include <utility>

namespace skillhost::plugin {
namespace {

RawOutcome error_outcome(const ErrorCode& code, std::string message, std::string details_json = "{}") {
    RawOutcome outcome;
    outcome.status = SKILLHOST_STATUS_ERROR;
    outcome.written = RawOutcome::Written::error;
    outcome.error_code = std::string(code.name);
    outcome.error_message = std::move(message);
    outcome.error_details_json = std::move(details_json);
    return outcome;
}

std::string describe(std::exception_ptr exception) {
    try {
        std::rethrow_exception(std::move(exception));
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "an exception of unknown type";
    }
}

// `entry` names what let it escape ("skill 'x'", "resources read()").
RawOutcome escaped_exception_outcome(const std::string& plugin, const std::string& skill, const std::string& entry,
                                     std::exception_ptr exception) {
    const std::string what = describe(std::move(exception));
    boost::json::object details{{"plugin", plugin}, {"skill", skill}, {"exception", what}};
    return error_outcome(errors::kPluginException,
                         entry + " of plugin '" + plugin + "' let a C++ exception escape across the C ABI (" + what +
                             "); the plugin must catch it and write an error (skill.hpp does this for you)",
                         boost::json::serialize(details));
}

// A plugin's details text as JSON when it is valid JSON, else as the string it is.
boost::json::value details_value(const std::string& text) {
    if (text.empty()) return boost::json::object{};
    std::error_code ec;
    boost::json::value parsed = boost::json::parse(text, ec);
    if (ec) return boost::json::value(text);
    return parsed;
}

}  // namespace

AbiPlugin::AbiPlugin(boost::dll::shared_library library, const skillhost_plugin* descriptor,
                     manifest::Manifest manifest, std::filesystem::path loaded_from, PluginHostContext host_context,
                     std::size_t max_result_bytes)
    : library_(std::move(library)),
      descriptor_(descriptor),
      manifest_(std::move(manifest)),
      loaded_from_(std::move(loaded_from)),
      version_(from_abi(descriptor->version)),
      host_context_(std::move(host_context)),
      services_(make_host_services(host_context_)),
      max_result_bytes_(max_result_bytes) {
    host_context_.plugin_name = manifest_.name;
    for (std::uint32_t i = 0; i < descriptor_->skill_count; ++i) {
        const skillhost_skill& skill = skill_at(*descriptor_, i);
        skills_.emplace(skill.id, skill.invoke);
    }
}

Result<std::shared_ptr<LoadedPlugin>> AbiPlugin::start(boost::dll::shared_library library,
                                                       const skillhost_plugin* descriptor, manifest::Manifest manifest,
                                                       std::filesystem::path loaded_from,
                                                       PluginHostContext host_context, std::size_t max_result_bytes) {
    std::shared_ptr<AbiPlugin> plugin(new AbiPlugin(std::move(library), descriptor, std::move(manifest),
                                                    std::move(loaded_from), std::move(host_context), max_result_bytes));
    if (descriptor->init == nullptr) {
        plugin->initialized_ = true;
        plugin->query_extensions();
        return std::shared_ptr<LoadedPlugin>(std::move(plugin));
    }

    ResultCapture capture;
    void* state = nullptr;
    skillhost_status status = SKILLHOST_STATUS_ERROR;
    try {
        status = descriptor->init(&plugin->services_, &state, capture.writer());
    } catch (...) {
        const std::string what = describe(std::current_exception());
        Error error{errors::kPluginInitFailed, "plugin '" + plugin->manifest_.name +
                                                   "' failed to initialise: init() let a C++ exception escape (" +
                                                   what +
                                                   "); catch exceptions inside init() and report them through the "
                                                   "error writer"};
        error.details["exception"] = what;
        return error;
    }
    RawOutcome written = capture.take();
    if (status == SKILLHOST_STATUS_OK) {
        plugin->state_ = state;
        plugin->initialized_ = true;
        plugin->query_extensions();
        if (written.written == RawOutcome::Written::error)
            spdlog::warn("[plugin {}] init() succeeded but also wrote error {}: {}", plugin->manifest_.name,
                         written.error_code, written.error_message);
        return std::shared_ptr<LoadedPlugin>(std::move(plugin));
    }

    // The plugin refused to start: shutdown() must not be called, so `plugin` unloads as is.
    const std::string& name = plugin->manifest_.name;
    std::string message = "plugin '" + name + "' failed to initialise";
    Error error{errors::kPluginInitFailed, ""};
    error.details["status"] = status;
    if (written.written == RawOutcome::Written::error) {
        message +=
            ": " + written.error_code + ": " + written.error_message + "; fix what the plugin reports, then reload it";
        error.details["plugin_code"] = written.error_code;
        error.details["plugin_message"] = written.error_message;
        error.details["plugin_details"] = details_value(written.error_details_json);
    } else {
        message += " (init returned status " + std::to_string(status) +
                   " without writing an error); check the plugin's log lines, and make its init() report "
                   "failures through the error writer";
    }
    error.message = std::move(message);
    return error;
}

AbiPlugin::~AbiPlugin() {
    if (initialized_ && descriptor_->shutdown != nullptr) {
        try {
            descriptor_->shutdown(state_);
        } catch (...) {
            spdlog::error("[plugin {}] shutdown() let an exception escape; the plugin is unloaded anyway",
                          manifest_.name);
        }
    }
    // library_ unloads after this body, once every member pointing into it is gone.
}

const void* AbiPlugin::extension(std::string_view id) const {
    const auto found = extensions_.find(id);
    return found == extensions_.end() ? nullptr : found->second;
}

void AbiPlugin::query_extensions() {
    const auto lookup = plugin_get_extension(*descriptor_);
    if (lookup == nullptr) return;
    // Asked once, here on the loading thread, as the ABI promises the plugin.
    for (const char* id : {SKILLHOST_EXT_PLUGIN_INFO, SKILLHOST_EXT_RESOURCES, SKILLHOST_EXT_PROMPTS}) {
        try {
            if (const void* table = lookup(state_, id)) extensions_.emplace(id, table);
        } catch (...) {
            spdlog::warn("[plugin {}] get_extension(\"{}\") let an exception escape; treated as not offered",
                         manifest_.name, id);
        }
    }
}

manifest::AbiVersion AbiPlugin::abi_version() const {
    return {descriptor_->abi_version.major, descriptor_->abi_version.minor};
}

RawOutcome AbiPlugin::invoke(const Call& context, std::string_view args_json) const {
    const auto skill = skills_.find(context.skill_id);
    if (skill == skills_.end()) {
        std::string known;
        for (const auto& [id, fn] : skills_) known += (known.empty() ? "" : ", ") + id;
        boost::json::object details{{"plugin", manifest_.name}, {"skill", context.skill_id}};
        return error_outcome(
            errors::kSkillNotFound,
            "plugin '" + manifest_.name + "' has no skill '" + context.skill_id + "'; its skills are: " + known,
            boost::json::serialize(details));
    }

    return with_call_context(context, max_result_bytes_, {},
                             [&](const skillhost_call_context& call, const skillhost_result_writer* writer) {
                                 return skill->second(state_, &call, to_abi(args_json), writer);
                             });
}

template <typename Run>
RawOutcome AbiPlugin::with_call_context(const Call& context, std::size_t max_bytes, std::string_view entry,
                                        Run&& run) const {
    // Built only when something went wrong: a skill call pays nothing for it.
    auto what = [&] { return entry.empty() ? "skill '" + context.skill_id + "'" : std::string(entry); };
    const std::string data_dir = context.data_dir.string();
    if (!data_dir.empty() && !context.data_dir_ready) {
        std::error_code ec;
        std::filesystem::create_directories(context.data_dir, ec);
        if (ec) {
            boost::json::object details{{"data_dir", data_dir}, {"reason", ec.message()}};
            return error_outcome(errors::kDataDirUnavailable,
                                 "cannot create the plugin data directory " + data_dir + " (" + ec.message() +
                                     "); check that the skillhost home is writable",
                                 boost::json::serialize(details));
        }
    }
    const std::string workspace_root = context.workspace_root.string();

    skillhost_call_context call{};
    call.struct_size = sizeof(skillhost_call_context);
    call.skill_id = to_abi(context.skill_id);
    call.call_id = to_abi(context.call_id);
    call.user_id = to_abi(context.user_id);
    call.cognitive_mode = to_abi(context.cognitive_mode);
    call.data_dir = to_abi(data_dir);
    call.workspace_root = to_abi(workspace_root);
    call.deadline_unix_ms = context.deadline_unix_ms;
    call.host_call = context.control;

    ResultCapture capture(max_bytes);
    skillhost_status status = SKILLHOST_STATUS_ERROR;
    try {
        // Log lines written on this thread belong to this call (and reach its front end).
        const CallThreadScope on_this_thread(context.control);
        status = run(call, capture.writer());
    } catch (...) {
        // Forbidden by the ABI, but a raw C++ plugin can let one escape; it must not unwind
        // through the executor. Whatever the plugin wrote before throwing is discarded.
        return escaped_exception_outcome(manifest_.name, context.skill_id, what(), std::current_exception());
    }
    RawOutcome outcome = capture.take();
    outcome.status = status;
    if (outcome.extra_writes > 0)
        spdlog::warn("[plugin {}] {} wrote {} more result(s) after its first; only the first counts", manifest_.name,
                     what(), outcome.extra_writes);
    return outcome;
}

RawOutcome AbiPlugin::request_resources(ResourceRequest request, const Call& context, std::string_view uri,
                                        std::size_t max_bytes) const {
    const auto* table = static_cast<const skillhost_resources_v1*>(extension(SKILLHOST_EXT_RESOURCES));
    using ListFn = decltype(skillhost_resources_v1::list);
    ListFn list = nullptr;
    if (table) list = request == ResourceRequest::list ? table->list : table->list_templates;
    if (!table || (request == ResourceRequest::read ? table->read == nullptr : list == nullptr))
        return LoadedPlugin::request_resources(request, context, uri, max_bytes);
    const std::string_view what = request == ResourceRequest::read             ? "resources read()"
                                  : request == ResourceRequest::list_templates ? "resources list_templates()"
                                                                               : "resources list()";
    return with_call_context(context, max_bytes, what,
                             [&](const skillhost_call_context& call, const skillhost_result_writer* writer) {
                                 if (request == ResourceRequest::read)
                                     return table->read(state_, &call, to_abi(uri), writer);
                                 return list(state_, &call, writer);
                             });
}

RawOutcome AbiPlugin::request_prompts(PromptRequest request, const Call& context, std::string_view name,
                                      std::string_view json, std::size_t max_bytes) const {
    const auto* table = static_cast<const skillhost_prompts_v1*>(extension(SKILLHOST_EXT_PROMPTS));
    const bool present = table && (request == PromptRequest::list  ? table->list != nullptr
                                   : request == PromptRequest::get ? table->get != nullptr
                                                                   : table->complete != nullptr);
    if (!present) return LoadedPlugin::request_prompts(request, context, name, json, max_bytes);
    const std::string_view what = request == PromptRequest::list  ? "prompts list()"
                                  : request == PromptRequest::get ? "prompts get()"
                                                                  : "prompts complete()";
    return with_call_context(context, max_bytes, what,
                             [&](const skillhost_call_context& call, const skillhost_result_writer* writer) {
                                 if (request == PromptRequest::list) return table->list(state_, &call, writer);
                                 if (request == PromptRequest::get)
                                     return table->get(state_, &call, to_abi(name), to_abi(json), writer);
                                 return table->complete(state_, &call, to_abi(json), writer);
                             });
}

}  // namespace skillhost::plugin
