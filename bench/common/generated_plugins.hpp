// Lays out N distinct plugins for the discovery and rendering benchmarks: per plugin a copy of the
// bench plugin library (libbench_NNN.so) and a manifest (bench_NNN.yaml) declaring one skill with a
// realistic input schema, all in one directory.
#pragma once

#include <filesystem>

namespace skillhost::bench {

// Creates (or replaces) `dir` with `count` plugins. Returns `dir`.
std::filesystem::path generate_plugins(const std::filesystem::path& dir, int count);

// A fresh directory under the system temp dir, removed by the destructor.
class ScratchDir {
public:
    explicit ScratchDir(const char* prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace skillhost::bench
