#include "db/postgres_connection.hpp"
#include "db/error_codes.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <poll.h>
#include <utility>

namespace skillhost::db {
namespace {

// libpq prints NOTICEs (e.g. "relation already exists, skipping") to stderr by default; they
// carry nothing a user of skillhost must act on.
void ignore_notice(void*, const char*) {}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

}  // namespace

PgResult::PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
    if (this != &other) {
        if (result_ != nullptr) PQclear(result_);
        result_ = std::exchange(other.result_, nullptr);
    }
    return *this;
}

PgResult::~PgResult() {
    if (result_ != nullptr) PQclear(result_);
}

int PgResult::rows() const {
    return result_ == nullptr ? 0 : PQntuples(result_);
}

int PgResult::columns() const {
    return result_ == nullptr ? 0 : PQnfields(result_);
}

std::string PgResult::text(int row, int column) const {
    if (is_null(row, column)) return {};
    return std::string(PQgetvalue(result_, row, column), static_cast<std::size_t>(PQgetlength(result_, row, column)));
}

std::int64_t PgResult::integer(int row, int column) const {
    if (is_null(row, column)) return 0;
    return std::strtoll(PQgetvalue(result_, row, column), nullptr, 10);
}

bool PgResult::is_null(int row, int column) const {
    return result_ == nullptr || row >= PQntuples(result_) || column >= PQnfields(result_) ||
           PQgetisnull(result_, row, column) != 0;
}

std::int64_t PgResult::affected() const {
    if (result_ == nullptr) return 0;
    const char* count = PQcmdTuples(result_);
    return count == nullptr || *count == '\0' ? 0 : std::strtoll(count, nullptr, 10);
}

namespace {

// When any connection of this process last (re)connected: a connection waiting out its backoff
// tries again at once once another has found the server back, instead of failing its next
// request (a pool holds several, each broken by the same restart).
std::atomic<std::chrono::steady_clock::rep> last_connected{0};

void note_connected() {
    last_connected.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
}

bool connected_since(std::chrono::steady_clock::time_point when) {
    return last_connected.load(std::memory_order_relaxed) > when.time_since_epoch().count();
}

// A process stopped inside a transaction (SIGSTOP, a paused VM, a debugger) keeps its connection
// and its row locks: the sweeper election's row, a run's lease. The server ends such a session
// after this long idle in its transaction, so the locks go and other instances take over; the
// stopped process, once continued, finds its connection gone and its leases fenced. The host's
// transactions never wait between statements, so no live one comes near it.
constexpr const char* stalled_transaction_limit = "-c idle_in_transaction_session_timeout=5000";

}  // namespace

Result<PgConnection> PgConnection::open(std::string_view url) {
    return open(url, std::chrono::seconds(10));
}

Result<PgConnection> PgConnection::open(std::string_view url, std::chrono::seconds connect_timeout) {
    const std::string dbname(url);
    const std::string timeout = std::to_string(std::max<std::int64_t>(1, connect_timeout.count()));
    // Keywords before dbname are defaults the expanded string may override.
    const char* keywords[] = {"connect_timeout", "application_name", "options", "dbname", nullptr};
    const char* values[] = {timeout.c_str(), "skillhost", stalled_transaction_limit, dbname.c_str(), nullptr};
    pg_conn* conn = PQconnectdbParams(keywords, values, 1);
    if (conn == nullptr) {
        return Error{errors::kDatabaseError, "cannot connect to PostgreSQL: out of memory", {}, {}};
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        Error error{errors::kDatabaseError,
                    "cannot connect to PostgreSQL: " + trimmed(PQerrorMessage(conn)),
                    {},
                    {"check storage.url in skillhost.yaml, that the server is running, and that the role may log in "
                     "(a password belongs in ~/.pgpass or $PGPASSWORD)"}};
        error.details["backend"] = "postgres";
        PQfinish(conn);
        return error;
    }
    PQsetNoticeProcessor(conn, ignore_notice, nullptr);
    note_connected();
    return PgConnection(conn);
}

PgConnection::PgConnection(pg_conn* conn) : conn_(conn) {
    const char* host = PQhost(conn);
    const std::string where = host == nullptr ? "" : host;
    target_ = std::string(PQuser(conn)) + "@" + where + ":" + PQport(conn) + "/" + PQdb(conn);
}

PgConnection::PgConnection(PgConnection&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      target_(std::move(other.target_)),
      in_transaction_(other.in_transaction_),
      session_settings_(std::move(other.session_settings_)),
      backoff_(other.backoff_),
      next_attempt_(other.next_attempt_),
      reconnects_(other.reconnects_) {}

PgConnection& PgConnection::operator=(PgConnection&& other) noexcept {
    if (this != &other) {
        if (conn_ != nullptr) PQfinish(conn_);
        conn_ = std::exchange(other.conn_, nullptr);
        target_ = std::move(other.target_);
        in_transaction_ = other.in_transaction_;
        session_settings_ = std::move(other.session_settings_);
        backoff_ = other.backoff_;
        next_attempt_ = other.next_attempt_;
        reconnects_ = other.reconnects_;
    }
    return *this;
}

PgConnection::~PgConnection() {
    if (conn_ != nullptr) PQfinish(conn_);
}

Error PgConnection::error(std::string_view doing, pg_result* result) const {
    const char* state = result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_SQLSTATE);
    std::string message = result != nullptr ? PQresultErrorMessage(result) : "";
    if (message.empty()) message = PQerrorMessage(conn_);
    Error error{errors::kDatabaseError,
                "PostgreSQL " + target_ + ": " + std::string(doing) + " failed: " + trimmed(message),
                {},
                {"check that the server is up and that `skillhost db check` reports the schema current"}};
    error.details["backend"] = "postgres";
    error.details["sqlstate"] = state == nullptr ? "" : state;
    return error;
}

Error PgConnection::unavailable(std::string_view why) const {
    Error error{errors::kDatabaseUnavailable,
                "PostgreSQL " + target_ + " cannot be reached: " + std::string(why),
                {},
                {"retry in a moment: skillhost reconnects by itself once the server is back",
                 "check that the database server is running (GET /readyz shows it)"}};
    error.details["backend"] = "postgres";
    error.details["retry_after_ms"] = backoff_.count();
    return error;
}

Status PgConnection::ensure_usable() {
    if (conn_ == nullptr) return unavailable("the connection is closed");
    if (PQstatus(conn_) == CONNECTION_OK && !in_transaction_) {
        // A server that shut down told this idle connection so and closed it; reading that now
        // spares the next statement a failure.
        // Its goodbye (a FATAL message) and the end of the stream may take separate reads.
        for (int reads = 0; reads < 4 && PQstatus(conn_) == CONNECTION_OK; ++reads) {
            pollfd fd{PQsocket(conn_), POLLIN, 0};
            if (fd.fd < 0 || ::poll(&fd, 1, 0) <= 0 || PQconsumeInput(conn_) == 0) break;
        }
    }
    if (PQstatus(conn_) == CONNECTION_OK) return {};
    if (in_transaction_) return unavailable("the connection broke inside a transaction");
    const auto now = std::chrono::steady_clock::now();
    if (now < next_attempt_ && !connected_since(next_attempt_ - backoff_))
        return unavailable("the connection broke; reconnecting");
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) {
        backoff_ = std::min<std::chrono::milliseconds>(
            std::max<std::chrono::milliseconds>(backoff_ * 2, std::chrono::milliseconds(100)), std::chrono::seconds(5));
        next_attempt_ = now + backoff_;
        return unavailable(trimmed(PQerrorMessage(conn_)));
    }
    backoff_ = std::chrono::milliseconds(0);
    ++reconnects_;
    note_connected();
    for (const auto& setting : session_settings_) {
        pg_result* raw = PQexec(conn_, setting.c_str());
        const bool ok = raw != nullptr && PQresultStatus(raw) == PGRES_COMMAND_OK;
        PQclear(raw);
        if (!ok) return unavailable("restoring `" + setting + "` after reconnecting failed");
    }
    return {};
}

void PgConnection::after_statement(std::string_view sql, bool succeeded) {
    if (PQstatus(conn_) != CONNECTION_OK) {
        // A rolled-back transaction is gone whatever the server saw: the connection may be re-opened.
        if (sql == "ROLLBACK") in_transaction_ = false;
        return;
    }
    in_transaction_ = PQtransactionStatus(conn_) != PQTRANS_IDLE;
    const bool session_setting = sql.size() > 4 && (sql.substr(0, 4) == "SET " || sql.substr(0, 4) == "set ") &&
                                 sql.find("LOCAL") == std::string_view::npos &&
                                 sql.find("local") == std::string_view::npos;
    if (succeeded && session_setting && !in_transaction_ && session_settings_.size() < 16) {
        session_settings_.emplace_back(sql);
    }
}

Status PgConnection::exec(std::string_view sql) {
    if (auto usable = ensure_usable(); !usable) {
        if (sql == "ROLLBACK") in_transaction_ = false;
        return usable;
    }
    // PQexec stops at the first failing statement and returns its error.
    pg_result* raw = PQexec(conn_, std::string(sql).c_str());
    const auto status = raw == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(raw);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY;
    after_statement(sql, ok);
    if (!ok) {
        Error e = PQstatus(conn_) != CONNECTION_OK
                      ? unavailable(trimmed(PQerrorMessage(conn_)))
                      : error("running `" + std::string(sql.substr(0, 80)) + (sql.size() > 80 ? "...`" : "`"), raw);
        PQclear(raw);
        return e;
    }
    PQclear(raw);
    return {};
}

Result<PgResult> PgConnection::query(std::string_view sql, const std::vector<PgParam>& params) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) {
        // libpq reads a text parameter up to its first NUL, and PostgreSQL text cannot hold one:
        // refuse rather than store a silently shortened value.
        if (p && p->find('\0') != std::string::npos) {
            Error e{errors::kDatabaseError,
                    "PostgreSQL " + target_ +
                        ": a value to store contains a NUL byte, which PostgreSQL text "
                        "cannot hold",
                    {},
                    {"remove the NUL byte from the input"}};
            e.details["backend"] = "postgres";
            e.details["sqlstate"] = "22021";  // character_not_in_repertoire, what the server would say
            return e;
        }
        values.push_back(p ? p->c_str() : nullptr);
    }
    if (auto usable = ensure_usable(); !usable) {
        if (sql == "ROLLBACK") in_transaction_ = false;
        return usable.error();
    }
    pg_result* raw = PQexecParams(conn_, std::string(sql).c_str(), static_cast<int>(values.size()), nullptr,
                                  values.data(), nullptr, nullptr, 0);
    const auto status = raw == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(raw);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    after_statement(sql, ok);
    if (!ok) {
        Error e = PQstatus(conn_) != CONNECTION_OK ? unavailable(trimmed(PQerrorMessage(conn_)))
                                                   : error("running a statement", raw);
        PQclear(raw);
        return e;
    }
    return PgResult(raw);
}

bool is_unavailable(const Error& error) {
    return error.is(errors::kDatabaseUnavailable);
}

std::string sqlstate_of(const Error& error) {
    if (!error.is(errors::kDatabaseError)) return {};
    const auto* state = error.details.if_contains("sqlstate");
    return state != nullptr && state->is_string() ? std::string(state->as_string()) : std::string();
}

PgTransaction::PgTransaction(PgConnection& connection) : connection_(connection) {
    begun_ = connection_.exec("BEGIN");
    open_ = begun_.ok();
}

PgTransaction::~PgTransaction() {
    if (open_) (void)connection_.exec("ROLLBACK");
}

Status PgTransaction::commit() {
    open_ = false;
    if (auto st = connection_.exec("COMMIT"); !st) {
        (void)connection_.exec("ROLLBACK");
        return st;
    }
    return {};
}

}  // namespace skillhost::db
