// Which storage backend a server test binary's daemons use. ctest runs the single-daemon server
// suites twice (tests/CMakeLists.txt, ON_EACH_BACKEND): as built, on each daemon's SQLite file, and
// with SKILLHOST_TEST_STORAGE=postgres, where every DaemonProcess whose setup names no `storage:`
// of its own gets a fresh database of the binary's throwaway PostgreSQL server. So the same tests
// hold the same behaviour to both backends.
#pragma once

#include "db/storage_location.hpp"

#include <string>

namespace skillhost::testing {

// postgres when the environment says SKILLHOST_TEST_STORAGE=postgres, otherwise sqlite.
db::StorageBackend selected_storage_backend();

// A fresh database of the shared PostgreSQL server (its connection string). Throws when none can
// be created; a missing server has already skipped (or, under CI=true, failed) the whole binary.
std::string fresh_postgres_database();

}  // namespace skillhost::testing
