// A fresh directory under $TMPDIR for one test, removed with everything in it afterwards.
#pragma once

#include <filesystem>
#include <string>

namespace skillhost::testing {

class TempDir {
public:
    explicit TempDir(const std::string& prefix = "skillhost-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::filesystem::path& rel) const { return path_ / rel; }

private:
    std::filesystem::path path_;
};

// Writes `text` to `file`, creating parent directories.
void write_file(const std::filesystem::path& file, const std::string& text);
std::string read_file(const std::filesystem::path& file);

}  // namespace skillhost::testing
