// A private temporary directory removed (with its contents) when the object goes away.
#pragma once

#include "base/error.hpp"

#include <filesystem>
#include <string>

namespace skillhost::cli {

class ScratchDir {
public:
    static Result<ScratchDir> create(const std::string& prefix);
    ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
    ScratchDir& operator=(ScratchDir&&) = delete;
    ScratchDir(const ScratchDir&) = delete;
    ~ScratchDir();
    const std::filesystem::path& path() const { return path_; }

private:
    explicit ScratchDir(std::filesystem::path p) : path_(std::move(p)) {}
    std::filesystem::path path_;
};

}  // namespace skillhost::cli
