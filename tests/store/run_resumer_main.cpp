// Child process for the resume race: waits until the start file exists (so every racer is ready
// before any claims), then resumes the run the way the operator does — read it, set it running,
// compare-and-set it in the store. Exit 0: this process drives the run; 3: another one won; 2: error.
#include "store/run_store.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
    using namespace skillhost::store;
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s sqlite|postgres FILE|URL RUN_ID START_FILE\n", argv[0]);
        return 2;
    }
    const std::string backend = argv[1];
    const auto location = backend == "postgres" ? skillhost::db::StorageLocation::postgres(argv[2])
                                                : skillhost::db::StorageLocation::sqlite(argv[2]);
    auto store = RunStore::open(location, RunOwnership{"resumer/" + std::to_string(getpid()), nullptr});
    if (!store) {
        std::fprintf(stderr, "%s\n", store.error().message.c_str());
        return 2;
    }
    auto run = (*store)->get(argv[3]);
    if (!run) return 2;
    while (!std::filesystem::exists(argv[4])) ::usleep(1000);
    run->status = RunStatus::running;
    auto claimed = (*store)->claim(*run, RunStatus::awaiting_approval);
    if (claimed) return 0;
    std::fprintf(stderr, "%s\n", claimed.error().code.c_str());
    return claimed.error().code == "RUN_ALREADY_RESUMED" ? 3 : 2;
}
