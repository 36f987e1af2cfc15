// A 64-bit counter in a small file that every process using the same mode store maps into memory
// (MAP_SHARED), so one process's mode change is visible to the others' caches with an atomic load:
// no system call per lookup.
#pragma once

#include "base/error.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>

namespace skillhost::policy {

class ModeChangeCounter {
public:
    // Creates the file (8 bytes, mode 0600) if it is missing. DATABASE_ERROR names the file and the
    // system's reason when it cannot be opened, is not a regular file, or cannot be mapped.
    static Result<std::unique_ptr<ModeChangeCounter>> open(const std::filesystem::path& file);
    ~ModeChangeCounter();
    ModeChangeCounter(const ModeChangeCounter&) = delete;
    ModeChangeCounter& operator=(const ModeChangeCounter&) = delete;

    std::uint64_t load() const;
    // Called after a change was committed to the store.
    void bump();
    const std::filesystem::path& file() const { return file_; }

private:
    ModeChangeCounter(std::filesystem::path file, std::uint64_t* value) : file_(std::move(file)), value_(value) {}
    std::filesystem::path file_;
    std::uint64_t* value_;  // in the shared mapping
};

}  // namespace skillhost::policy
