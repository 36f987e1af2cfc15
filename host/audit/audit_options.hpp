// How the audit log writes: when it forces data to disk and how much of an argument it keeps.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

namespace skillhost::audit {

// never: leave flushing to the OS (fastest; a power cut may lose recent records).
// always: fdatasync after every record (slowest; nothing acknowledged is lost).
// interval: fdatasync on the first record written after `fsync_interval` has passed since the last
//           sync, and when the log closes.
enum class FsyncPolicy { never, always, interval };
const char* to_string(FsyncPolicy);
std::optional<FsyncPolicy> parse_fsync_policy(std::string_view);

struct AuditOptions {
    FsyncPolicy fsync = FsyncPolicy::interval;
    std::chrono::milliseconds fsync_interval{1000};
    // Argument values longer than this (strings by length, arrays/objects by their JSON text) are
    // replaced by a prefix, their length and their SHA-256.
    std::size_t max_value_chars = 256;
    // Tests inject a clock to cross a day boundary; empty means the system clock.
    std::function<std::chrono::system_clock::time_point()> clock;
};

}  // namespace skillhost::audit
