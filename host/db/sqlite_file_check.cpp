#include "db/sqlite_file_check.hpp"
#include "db/error_codes.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <fstream>

namespace skillhost::db {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kDatabaseHeaderBytes = 100;
constexpr std::size_t kWalHeaderBytes = 32;
constexpr std::size_t kWalFrameHeaderBytes = 24;
constexpr std::uint32_t kWalMagicLittle = 0x377f0682;
constexpr std::uint32_t kWalMagicBig = 0x377f0683;

std::uint32_t big_endian(const unsigned char* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

std::uint32_t little_endian(const unsigned char* p) {
    return (std::uint32_t{p[3]} << 24) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[1]} << 8) | std::uint32_t{p[0]};
}

// SQLite's WAL checksum (walChecksumBytes): over 32-bit words in the byte order the magic names,
// continuing from `s`. `size` is a multiple of 8.
void wal_checksum(bool big, const unsigned char* data, std::size_t size, std::uint32_t s[2]) {
    for (std::size_t i = 0; i + 8 <= size; i += 8) {
        const std::uint32_t a = big ? big_endian(data + i) : little_endian(data + i);
        const std::uint32_t b = big ? big_endian(data + i + 4) : little_endian(data + i + 4);
        s[0] += a + s[1];
        s[1] += b + s[0];
    }
}

std::uintmax_t size_of(const fs::path& file, bool& exists) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    exists = !ec;
    return ec ? 0 : size;
}

void inspect_database(const fs::path& file, std::vector<SqliteFileProblem>& problems) {
    bool exists = false;
    const auto size = size_of(file, exists);
    if (!exists) return;
    if (size == 0) {
        problems.push_back({file,
                            "it is empty (0 bytes); a database is never left empty once created, so it was "
                            "truncated or replaced"});
        return;
    }
    if (size < kDatabaseHeaderBytes) {
        problems.push_back({file, "it is " + std::to_string(size) + " bytes, shorter than a database header"});
        return;
    }
    std::ifstream in(file, std::ios::binary);
    std::array<unsigned char, kDatabaseHeaderBytes> header{};
    if (!in.read(reinterpret_cast<char*>(header.data()), header.size())) return;  // SQLite says why
    static const char magic[] = "SQLite format 3";
    if (!std::equal(magic, magic + sizeof magic, header.begin())) return;  // SQLite refuses it clearly
    std::uint32_t page_size = (std::uint32_t{header[16]} << 8) | header[17];
    if (page_size == 1) page_size = 65536;
    const std::uint32_t pages = big_endian(header.data() + 28);
    // The page count is valid when the change counter matches "version valid for" (SQLite 3.7+).
    const bool count_valid = big_endian(header.data() + 24) == big_endian(header.data() + 92) && pages > 0;
    if (count_valid && page_size >= 512 && static_cast<std::uintmax_t>(pages) * page_size > size) {
        problems.push_back({file, "it is " + std::to_string(size) + " bytes but its header records " +
                                      std::to_string(pages) + " pages of " + std::to_string(page_size) +
                                      " bytes: it was truncated"});
    }
}

void inspect_wal(const fs::path& database_file, const fs::path& wal, std::vector<SqliteFileProblem>& problems) {
    bool exists = false;
    const auto size = size_of(wal, exists);
    if (!exists || size == 0) return;
    bool database_exists = false;
    (void)size_of(database_file, database_exists);
    if (!database_exists) {
        problems.push_back({wal, "the database it belongs to is missing"});
        return;
    }
    if (size < kWalHeaderBytes) {
        problems.push_back({wal, "it is " + std::to_string(size) + " bytes, shorter than a WAL header"});
        return;
    }
    std::ifstream in(wal, std::ios::binary);
    std::array<unsigned char, kWalHeaderBytes> header{};
    if (!in.read(reinterpret_cast<char*>(header.data()), header.size())) return;
    const std::uint32_t magic = big_endian(header.data());
    if (magic != kWalMagicLittle && magic != kWalMagicBig) {
        problems.push_back({wal,
                            "its header is garbled (not a SQLite WAL); SQLite would discard every "
                            "transaction in it"});
        return;
    }
    const bool big = magic == kWalMagicBig;
    std::uint32_t sum[2] = {0, 0};
    wal_checksum(big, header.data(), 24, sum);
    if (sum[0] != big_endian(header.data() + 24) || sum[1] != big_endian(header.data() + 28)) {
        if (size > kWalHeaderBytes) {
            problems.push_back({wal, "its header fails its checksum; SQLite would discard every transaction in it"});
        }
        return;
    }
    const std::uint32_t page_size = big_endian(header.data() + 8);
    if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
        problems.push_back({wal, "its header names an impossible page size"});
        return;
    }
    const std::uint32_t salt1 = big_endian(header.data() + 16);
    const std::uint32_t salt2 = big_endian(header.data() + 20);
    std::vector<unsigned char> frame(kWalFrameHeaderBytes + page_size);
    std::uintmax_t frames = 0;
    std::uintmax_t bad_frame = 0;  // 1-based; 0: none
    while (in.read(reinterpret_cast<char*>(frame.data()), static_cast<std::streamsize>(frame.size()))) {
        ++frames;
        const bool this_generation = big_endian(frame.data() + 8) == salt1 && big_endian(frame.data() + 12) == salt2;
        if (bad_frame != 0) {
            // A whole frame of the current generation after a bad one: SQLite would drop it, and it
            // was written (so committed or on its way) after the damaged one.
            if (this_generation) {
                problems.push_back({wal, "frame " + std::to_string(bad_frame) +
                                             " fails its checksum while later frames of the same log are intact; "
                                             "SQLite would discard frame " +
                                             std::to_string(bad_frame) + " and everything after it"});
                return;
            }
            continue;
        }
        if (!this_generation) break;  // what follows is left over from before the last checkpoint
        std::uint32_t next[2] = {sum[0], sum[1]};
        wal_checksum(big, frame.data(), 8, next);
        wal_checksum(big, frame.data() + kWalFrameHeaderBytes, page_size, next);
        if (next[0] != big_endian(frame.data() + 16) || next[1] != big_endian(frame.data() + 20)) {
            bad_frame = frames;  // the last frame may be torn by a crash mid-write: only later ones tell
            continue;
        }
        sum[0] = next[0];
        sum[1] = next[1];
    }
}

std::string utc_stamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &tm);
    return text;
}

}  // namespace

std::vector<SqliteFileProblem> inspect_sqlite_files(const fs::path& database_file) {
    std::vector<SqliteFileProblem> problems;
    inspect_database(database_file, problems);
    inspect_wal(database_file, fs::path(database_file.string() + "-wal"), problems);
    return problems;
}

Error damaged_store_error(const fs::path& database_file, const std::vector<SqliteFileProblem>& problems) {
    std::string message = "the database " + database_file.string() + " is damaged and the host will not start over it:";
    boost::json::array listed;
    for (const auto& p : problems) {
        message += " " + p.file.filename().string() + ": " + p.what + ";";
        listed.push_back(boost::json::object{{"file", p.file.string()}, {"problem", p.what}});
    }
    message += " nothing was changed or deleted";
    Error error{errors::kStoreDamaged,
                std::move(message),
                {},
                {"keep the files: copy " + database_file.string() + "* somewhere safe before anything else",
                 "restore skillhost.db and its -wal from a backup if you have one",
                 "`skillhost db check` explains the damage; `skillhost db check --set-aside` moves the damaged "
                 "files into a damaged-<time> folder beside them so the host can start on a new database"}};
    error.details["database"] = database_file.string();
    error.details["problems"] = std::move(listed);
    return error;
}

Result<fs::path> set_aside_sqlite_files(const fs::path& database_file) {
    const fs::path dir = database_file.parent_path() / ("damaged-" + utc_stamp());
    std::error_code ec;
    if (fs::exists(dir, ec) || !fs::create_directory(dir, ec)) {
        return Error{errors::kSetAsideFailed,
                     "cannot create " + dir.string() + (ec ? ": " + ec.message() : ": it exists already"),
                     {},
                     {"retry in a second, or move the files by hand"}};
    }
    for (const char* suffix : {"", "-wal", "-shm"}) {
        const fs::path from(database_file.string() + suffix);
        if (!fs::exists(from, ec)) continue;
        fs::rename(from, dir / from.filename(), ec);
        if (ec) {
            return Error{errors::kSetAsideFailed,
                         "cannot move " + from.string() + " into " + dir.string() + ": " + ec.message(),
                         {},
                         {"move the files by hand; nothing was deleted"}};
        }
    }
    return dir;
}

}  // namespace skillhost::db
