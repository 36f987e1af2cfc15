// A disk that fails writes with an I/O error (a bad sector, a lost device) under a writable
// directory: the error says so (details.cause io_error), is 503-class (unavailable: nothing for a
// client to fix, and it may pass), and points at the system log and `skillhost db check`.
// The fault is injected below SQLite by a VFS that wraps the real one and fails writes on request,
// so every layer above the file system is the real one.
#include "base/error_kind.hpp"
#include "db/sqlite_connection.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <string>

namespace skillhost::db {
namespace {

std::atomic<bool> fail_writes{false};
sqlite3_vfs* real_vfs = nullptr;

// A file of the failing VFS: the real file's handle follows this header in the same allocation.
struct FailingFile {
    sqlite3_file base;
    sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

FailingFile* of(sqlite3_file* f) {
    return reinterpret_cast<FailingFile*>(f);
}

int x_close(sqlite3_file* f) {
    return of(f)->real()->pMethods->xClose(of(f)->real());
}
int x_read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
    return of(f)->real()->pMethods->xRead(of(f)->real(), buffer, amount, offset);
}
int x_write(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) {
    if (fail_writes) return SQLITE_IOERR_WRITE;
    return of(f)->real()->pMethods->xWrite(of(f)->real(), buffer, amount, offset);
}
int x_truncate(sqlite3_file* f, sqlite3_int64 size) {
    return of(f)->real()->pMethods->xTruncate(of(f)->real(), size);
}
int x_sync(sqlite3_file* f, int flags) {
    if (fail_writes) return SQLITE_IOERR_FSYNC;
    return of(f)->real()->pMethods->xSync(of(f)->real(), flags);
}
int x_file_size(sqlite3_file* f, sqlite3_int64* size) {
    return of(f)->real()->pMethods->xFileSize(of(f)->real(), size);
}
int x_lock(sqlite3_file* f, int level) {
    return of(f)->real()->pMethods->xLock(of(f)->real(), level);
}
int x_unlock(sqlite3_file* f, int level) {
    return of(f)->real()->pMethods->xUnlock(of(f)->real(), level);
}
int x_check_reserved_lock(sqlite3_file* f, int* out) {
    return of(f)->real()->pMethods->xCheckReservedLock(of(f)->real(), out);
}
int x_file_control(sqlite3_file* f, int op, void* arg) {
    return of(f)->real()->pMethods->xFileControl(of(f)->real(), op, arg);
}
int x_sector_size(sqlite3_file* f) {
    return of(f)->real()->pMethods->xSectorSize(of(f)->real());
}
int x_device_characteristics(sqlite3_file* f) {
    return of(f)->real()->pMethods->xDeviceCharacteristics(of(f)->real());
}
int x_shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
    return of(f)->real()->pMethods->xShmMap(of(f)->real(), page, size, extend, out);
}
int x_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
    return of(f)->real()->pMethods->xShmLock(of(f)->real(), offset, n, flags);
}
void x_shm_barrier(sqlite3_file* f) {
    of(f)->real()->pMethods->xShmBarrier(of(f)->real());
}
int x_shm_unmap(sqlite3_file* f, int delete_flag) {
    return of(f)->real()->pMethods->xShmUnmap(of(f)->real(), delete_flag);
}

const sqlite3_io_methods failing_methods = {
    2,
    x_close,
    x_read,
    x_write,
    x_truncate,
    x_sync,
    x_file_size,
    x_lock,
    x_unlock,
    x_check_reserved_lock,
    x_file_control,
    x_sector_size,
    x_device_characteristics,
    x_shm_map,
    x_shm_lock,
    x_shm_barrier,
    x_shm_unmap,
    nullptr,
    nullptr,
};

int x_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
    FailingFile* file = of(f);
    file->base.pMethods = nullptr;
    const int rc = real_vfs->xOpen(real_vfs, name, file->real(), flags, out_flags);
    if (rc == SQLITE_OK && file->real()->pMethods != nullptr) file->base.pMethods = &failing_methods;
    return rc;
}

// Registered as the default VFS for the rest of this test process.
void install_failing_vfs() {
    static sqlite3_vfs vfs = [] {
        real_vfs = sqlite3_vfs_find(nullptr);
        sqlite3_vfs v = *real_vfs;
        v.iVersion = 1;  // no xCurrentTimeInt64/xSetSystemCall: the real VFS's version 1 entries suffice
        v.szOsFile = static_cast<int>(sizeof(FailingFile)) + real_vfs->szOsFile;
        v.zName = "skillhost-failing-writes";
        v.pAppData = nullptr;
        v.xOpen = x_open;
        v.xDelete = [](sqlite3_vfs*, const char* name, int sync) { return real_vfs->xDelete(real_vfs, name, sync); };
        v.xAccess = [](sqlite3_vfs*, const char* name, int flags, int* out) {
            return real_vfs->xAccess(real_vfs, name, flags, out);
        };
        v.xFullPathname = [](sqlite3_vfs*, const char* name, int n, char* out) {
            return real_vfs->xFullPathname(real_vfs, name, n, out);
        };
        v.xRandomness = [](sqlite3_vfs*, int n, char* out) { return real_vfs->xRandomness(real_vfs, n, out); };
        v.xSleep = [](sqlite3_vfs*, int us) { return real_vfs->xSleep(real_vfs, us); };
        v.xCurrentTime = [](sqlite3_vfs*, double* out) { return real_vfs->xCurrentTime(real_vfs, out); };
        v.xGetLastError = [](sqlite3_vfs*, int n, char* out) { return real_vfs->xGetLastError(real_vfs, n, out); };
        return v;
    }();
    static const int registered = sqlite3_vfs_register(&vfs, 1);
    ASSERT_EQ(registered, SQLITE_OK);
}

TEST(SqliteIoError, AWriteTheDiskFailsIsUnavailableNamesTheCauseAndSaysWhatToCheck) {
    install_failing_vfs();
    testing::TempDir dir;
    auto connection = SqliteConnection::open(dir.path() / "skillhost.db");
    ASSERT_TRUE(connection) << connection.error().message;
    ASSERT_TRUE(connection->exec("CREATE TABLE t (x INTEGER)").ok());

    fail_writes = true;
    const Status failed = connection->exec("INSERT INTO t VALUES (1)");
    fail_writes = false;
    ASSERT_FALSE(failed.ok());
    const Error& error = failed.error();
    EXPECT_EQ(error.code, "DATABASE_ERROR");
    EXPECT_EQ(error.kind(), ErrorKind::unavailable) << error.message;
    EXPECT_EQ(error.details.at("cause").as_string(), "io_error") << error.message;
    EXPECT_NE(error.message.find("I/O error"), std::string::npos) << error.message;
    EXPECT_NE(error.message.find("skillhost db check"), std::string::npos) << error.message;

    // Nothing was lost: once the disk works again, so does the connection, with what it had.
    ASSERT_TRUE(connection->exec("INSERT INTO t VALUES (2)").ok());
    SqliteStatement rows(connection.value(), "SELECT group_concat(x) FROM t");
    ASSERT_EQ(rows.step(), SQLITE_ROW);
    EXPECT_EQ(rows.text(0), "2");
}

}  // namespace
}  // namespace skillhost::db
