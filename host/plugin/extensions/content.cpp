// "skillhost.content/1": content items beside the call's structured result. Answered where the
// plugin runs: the items are kept in the call (checked against the same limits in the host and in a
// runner) and travel with its result.
#include "plugin/error_codes.hpp"
#include "plugin/extensions/host_extension.hpp"

#include "plugin/abi_strings.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::plugin {
namespace {

skillhost_status add_content(void*, const skillhost_call_context* call, skillhost_string_view item_json,
                             const skillhost_result_writer* error_writer) noexcept {
    CallControl* control = control_of(call);
    try {
        if (!control)
            return answer_through(error_writer,
                                  Error{errors::kContentUnavailable, "content can only be added during a call"});
        if (item_json.size > 0 && item_json.data == nullptr)
            return answer_through(error_writer,
                                  Error{errors::kContentInvalid, "the content item is a null pointer with a size"});
        const Status added = control->content.add(from_abi(item_json));
        if (added) return SKILLHOST_STATUS_OK;
        return answer_through(error_writer, added.error());
    } catch (const std::exception& e) {
        write_error(error_writer, errors::kContentInvalid.name,
                    std::string("the host could not keep the item: ") + e.what(), "{}");
    } catch (...) {
        write_error(error_writer, errors::kContentInvalid.name, "the host could not keep the item", "{}");
    }
    return SKILLHOST_STATUS_INVALID_ARGS;
}

const skillhost_content_v1 table{&add_content};

}  // namespace

extern const HostExtension content_extension{
    .id = SKILLHOST_EXT_CONTENT,
    .table = &table,
};

}  // namespace skillhost::plugin
