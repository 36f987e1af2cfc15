#include "cli/scratch_dir.hpp"
#include "cli/error_codes.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace skillhost::cli {

Result<ScratchDir> ScratchDir::create(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data()))
        return Error{errors::kTempDirFailed,
                     "cannot create a temporary directory " + tmpl + ": " + std::strerror(errno),
                     {},
                     {"set TMPDIR to a writable directory"}};
    return ScratchDir(std::filesystem::path(tmpl));
}

ScratchDir::~ScratchDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

}  // namespace skillhost::cli
