// The host's side of skillhost_result_writer: keeps the first write, counts the ones after it.
#pragma once

#include "plugin/loaded_plugin.hpp"

#include <skillhost/skill_abi.h>

#include <cstddef>
#include <mutex>

namespace skillhost::plugin {

// The default limit on one skill's result: 16 MiB.
inline constexpr std::size_t kDefaultMaxResultBytes = std::size_t{16} << 20;

class ResultCapture {
public:
    // A result (or error) larger than `max_bytes` is not copied: the call ends with a host-written
    // RESULT_TOO_LARGE error instead, so a plugin cannot push an unbounded answer into the host.
    explicit ResultCapture(std::size_t max_bytes = kDefaultMaxResultBytes) : max_bytes_(max_bytes) {}
    ResultCapture(const ResultCapture&) = delete;
    ResultCapture& operator=(const ResultCapture&) = delete;

    // Valid as long as this capture lives; the plugin may call it from any thread during the call.
    const skillhost_result_writer* writer() const { return &writer_; }

    // What was written so far (status left as the caller sets it).
    RawOutcome take();

private:
    static void on_result(void* context, skillhost_string_view result_json) noexcept;
    static void on_error(void* context, skillhost_string_view code, skillhost_string_view message,
                         skillhost_string_view details_json) noexcept;

    bool too_large(std::size_t size);

    const std::size_t max_bytes_;
    // A plugin may write from a worker thread while another write is in progress.
    std::mutex mutex_;
    RawOutcome outcome_;
    skillhost_result_writer writer_{this, &ResultCapture::on_result, &ResultCapture::on_error,
                                    static_cast<std::uint32_t>(sizeof(skillhost_result_writer))};
};

}  // namespace skillhost::plugin
