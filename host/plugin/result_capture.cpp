#include "plugin/result_capture.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/abi_strings.hpp"

#include <string>
#include <utility>

namespace skillhost::plugin {

// Called with mutex_ held, before anything is copied.
bool ResultCapture::too_large(std::size_t size) {
    if (size <= max_bytes_) return false;
    outcome_.written = RawOutcome::Written::error;
    outcome_.error_code = std::string(errors::kResultTooLarge.name);
    outcome_.error_message = "the skill wrote " + std::to_string(size) + " bytes, more than the limit of " +
                             std::to_string(max_bytes_) +
                             " bytes; ask for less at once (paging, filters) or raise "
                             "isolation.max_result_bytes in skillhost.yaml";
    outcome_.error_details_json =
        "{\"size\":" + std::to_string(size) + ",\"limit\":" + std::to_string(max_bytes_) + "}";
    return true;
}

RawOutcome ResultCapture::take() {
    std::lock_guard lock(mutex_);
    return std::exchange(outcome_, RawOutcome{});
}

void ResultCapture::on_result(void* context, skillhost_string_view result_json) noexcept {
    auto* self = static_cast<ResultCapture*>(context);
    if (!self) return;
    try {
        std::lock_guard lock(self->mutex_);
        if (self->outcome_.written != RawOutcome::Written::nothing) {
            ++self->outcome_.extra_writes;
            return;
        }
        if (self->too_large(result_json.size)) return;
        self->outcome_.written = RawOutcome::Written::result;
        self->outcome_.result_json.assign(from_abi(result_json));
    } catch (...) {
        // Out of memory while copying: the call ends with nothing written, which the executor
        // reports as a missing result instead of the host dying inside a plugin's call.
    }
}

void ResultCapture::on_error(void* context, skillhost_string_view code, skillhost_string_view message,
                             skillhost_string_view details_json) noexcept {
    auto* self = static_cast<ResultCapture*>(context);
    if (!self) return;
    try {
        std::lock_guard lock(self->mutex_);
        if (self->outcome_.written != RawOutcome::Written::nothing) {
            ++self->outcome_.extra_writes;
            return;
        }
        if (self->too_large(code.size + message.size + details_json.size)) return;
        self->outcome_.written = RawOutcome::Written::error;
        self->outcome_.error_code.assign(from_abi(code));
        self->outcome_.error_message.assign(from_abi(message));
        self->outcome_.error_details_json.assign(from_abi(details_json));
    } catch (...) {
        // See on_result.
    }
}

}  // namespace skillhost::plugin
