#include "support/postgres_server.hpp"

#include <libpq-fe.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <pwd.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* port = "5432";  // only names the socket file; the directory is ours alone

// Debian puts the server programs in /usr/lib/postgresql/<major>/bin, not on PATH.
fs::path find_bindir() {
    if (const char* dir = std::getenv("SKILLHOST_TEST_PG_BINDIR"); dir != nullptr && *dir) return dir;
    fs::path best;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
        if (fs::exists(entry.path() / "bin/initdb", ec) && (best.empty() || entry.path() > best.parent_path()))
            best = entry.path() / "bin";
    }
    return best;
}

struct Account {
    uid_t uid = 0;
    gid_t gid = 0;
    bool switch_to = false;
};

// Starts `argv` as the account, output appended to `log`. The child's pid, or -1.
pid_t spawn(const std::vector<std::string>& argv, const Account& account, const fs::path& log) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const std::string log_path = log.string();
    const pid_t pid = fork();
    if (pid != 0) return pid;
    // Only async-signal-safe calls from here on.
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
    }
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    setpgid(0, 0);  // a Ctrl-C of the test run reaches the test, which stops the server itself
    if (account.switch_to && (setgid(account.gid) != 0 || setuid(account.uid) != 0)) _exit(126);
    execv(args[0], args.data());
    _exit(127);
}

int wait_exit(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string log_tail(const fs::path& log) {
    std::string text = read_file(log);
    return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

}  // namespace

bool postgres_required() {
    const char* ci = std::getenv("CI");
    return ci != nullptr && std::string_view(ci) == "true";
}

std::unique_ptr<PostgresServer> PostgresServer::start(std::string& why) {
    const fs::path bindir = find_bindir();
    if (bindir.empty()) {
        why = "no /usr/lib/postgresql/*/bin/initdb; install Debian's postgresql package (scripts/install-deps)";
        return nullptr;
    }
    std::unique_ptr<PostgresServer> server(new PostgresServer());
    const fs::path root = server->dir_.path();
    const fs::path data = root / "data";
    const fs::path log = root / "postgres.log";
    Account account;
    if (geteuid() == 0) {
        const passwd* pw = getpwnam("postgres");
        if (pw == nullptr) {
            why = "running as root and there is no `postgres` user to run the server as";
            return nullptr;
        }
        account = {pw->pw_uid, pw->pw_gid, true};
        if (chown(root.c_str(), account.uid, account.gid) != 0) {
            why = "cannot hand " + root.string() + " to the postgres user";
            return nullptr;
        }
    }
    const pid_t init = spawn({(bindir / "initdb").string(), "-D", data.string(), "-U", "postgres", "--auth=trust", "-E",
                              "UTF8", "--no-locale", "--no-sync"},
                             account, log);
    if (init < 0 || wait_exit(init) != 0) {
        why = "initdb failed: " + log_tail(log);
        return nullptr;
    }
    server->bindir_ = bindir.string();
    server->uid_ = account.uid;
    server->gid_ = account.gid;
    server->switch_user_ = account.switch_to;
    if (!server->launch(why)) return nullptr;  // the destructor stops a server that never came up
    return server;
}

bool PostgresServer::launch(std::string& why) {
    const fs::path root = dir_.path();
    const fs::path log = root / "postgres.log";
    // No TCP at all; fsync off because the data dies with the test.
    pid_ = spawn({(fs::path(bindir_) / "postgres").string(), "-D", (root / "data").string(), "-k", root.string(), "-p",
                  port, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=200"},
                 Account{uid_, gid_, switch_user_}, log);
    if (pid_ < 0) {
        why = "cannot start postgres";
        return false;
    }
    const std::string conninfo = url();
    // Readiness is an event (the server answers), polled; the bound only ends a server that never comes up.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (PQping(conninfo.c_str()) != PQPING_OK) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            why = "postgres exited while starting: " + log_tail(log);
            return false;
        }
        if (std::chrono::steady_clock::now() > give_up) {
            why = "postgres did not accept connections within 120 s: " + log_tail(log);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

void PostgresServer::stop(Shutdown how) {
    if (pid_ <= 0) return;
    // fast: disconnects clients, no checkpoint wait for them; immediate: the server's processes
    // quit at once, as in a crash (recovery replays the WAL at the next start)
    kill(pid_, how == Shutdown::immediate ? SIGQUIT : SIGINT);
    for (int i = 0; i < 3000; ++i) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(-pid_, SIGKILL);
    wait_exit(pid_);
    pid_ = -1;
}

bool PostgresServer::start_again(std::string& why) {
    if (pid_ > 0) return true;
    return launch(why);
}

PostgresServer::~PostgresServer() {
    stop();
}

std::string PostgresServer::url(std::string_view database) const {
    return "host=" + dir_.path().string() + " port=" + port + " user=postgres dbname=" + std::string(database);
}

std::string PostgresServer::fresh_database(std::string& why) {
    const std::string name = "test_" + std::to_string(getpid()) + "_" + std::to_string(++databases_);
    PGconn* conn = PQconnectdb(url().c_str());
    std::string created;
    if (PQstatus(conn) == CONNECTION_OK) {
        PGresult* result = PQexec(conn, ("CREATE DATABASE " + name).c_str());
        if (PQresultStatus(result) == PGRES_COMMAND_OK)
            created = url(name);
        else
            why = std::string("CREATE DATABASE failed: ") + PQresultErrorMessage(result);
        PQclear(result);
    } else {
        why = std::string("cannot connect to the test server: ") + PQerrorMessage(conn);
    }
    PQfinish(conn);
    return created;
}

PostgresServer* shared_postgres_server(std::string& why) {
    static std::string start_problem;
    static std::unique_ptr<PostgresServer> server = PostgresServer::start(start_problem);
    why = start_problem;
    return server.get();
}

void OnEachBackend::SetUp() {
    if (GetParam() != db::StorageBackend::postgres) return;
    SKILLHOST_POSTGRES_DATABASE(url);
    postgres_url = url;
}

db::StorageLocation OnEachBackend::location() const {
    return GetParam() == db::StorageBackend::postgres ? db::StorageLocation::postgres(postgres_url)
                                                      : db::StorageLocation::sqlite(home / "skillhost.db");
}

std::string backend_test_name(const ::testing::TestParamInfo<db::StorageBackend>& info) {
    return info.param == db::StorageBackend::sqlite ? "Sqlite" : "Postgres";
}

}  // namespace skillhost::testing
