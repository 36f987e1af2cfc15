#include "policy/mode_change_counter.hpp"
#include "db/error_codes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skillhost::policy {
namespace {

Error counter_error(const std::filesystem::path& file, std::string_view what, int err) {
    Error e{errors::kDatabaseError,
            "cannot " + std::string(what) + " the mode change counter " + file.string() + ": " + std::strerror(err) +
                "; make the directory of skillhost.db writable by this user",
            {},
            {}};
    e.details["file"] = file.string();
    return e;
}

}  // namespace

Result<std::unique_ptr<ModeChangeCounter>> ModeChangeCounter::open(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return counter_error(file, "open", errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return counter_error(file, "inspect", err);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return counter_error(file, "use", EINVAL);
    }
    // Growing to 8 bytes zero-fills; a file that already has them keeps its count (two processes
    // creating it at once both truncate to the same size, which changes nothing).
    if (st.st_size < static_cast<off_t>(sizeof(std::uint64_t)) && ::ftruncate(fd, sizeof(std::uint64_t)) != 0) {
        const int err = errno;
        ::close(fd);
        return counter_error(file, "size", err);
    }
    // The mapped bytes get real storage now: a sparse page first touched once the disk is full
    // would kill the process with SIGBUS instead of failing a write.
    if (const int failed = ::posix_fallocate(fd, 0, sizeof(std::uint64_t)); failed != 0) {
        ::close(fd);
        return counter_error(file, "allocate", failed);
    }
    void* map = ::mmap(nullptr, sizeof(std::uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int err = errno;
    ::close(fd);  // the mapping keeps the file
    if (map == MAP_FAILED) return counter_error(file, "map", err);
    auto counter = std::unique_ptr<ModeChangeCounter>(new ModeChangeCounter(file, static_cast<std::uint64_t*>(map)));
    (void)counter->load();  // fault the page in while there is space for it
    return counter;
}

ModeChangeCounter::~ModeChangeCounter() {
    ::munmap(value_, sizeof(std::uint64_t));
}

std::uint64_t ModeChangeCounter::load() const {
    return __atomic_load_n(value_, __ATOMIC_ACQUIRE);
}

void ModeChangeCounter::bump() {
    __atomic_fetch_add(value_, 1, __ATOMIC_ACQ_REL);
}

}  // namespace skillhost::policy
