#include "exec/known_directories.hpp"

#include <filesystem>

namespace skillhost::exec {

std::error_code KnownDirectories::ensure(const std::string& dir) {
    {
        std::lock_guard lock(mutex_);
        if (known_.contains(dir)) return {};
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return ec;
    std::lock_guard lock(mutex_);
    if (known_.size() >= limit_) known_.clear();
    known_.insert(dir);
    return {};
}

}  // namespace skillhost::exec
