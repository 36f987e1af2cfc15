#include "db/postgres_connection.hpp"

#include <libpq-fe.h>

#include <cstdlib>
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

Result<PgConnection> PgConnection::open(std::string_view url) {
    const std::string dbname(url);
    // Keywords before dbname are defaults the expanded string may override.
    const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
    const char* values[] = {"10", "skillhost", dbname.c_str(), nullptr};
    pg_conn* conn = PQconnectdbParams(keywords, values, 1);
    if (conn == nullptr) {
        return Error{"DATABASE_ERROR", "cannot connect to PostgreSQL: out of memory", {}, {}};
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        Error error{"DATABASE_ERROR",
                    "cannot connect to PostgreSQL: " + trimmed(PQerrorMessage(conn)),
                    {},
                    {"check storage.url in skillhost.yaml, that the server is running, and that the role may log in "
                     "(a password belongs in ~/.pgpass or $PGPASSWORD)"}};
        error.details["backend"] = "postgres";
        PQfinish(conn);
        return error;
    }
    PQsetNoticeProcessor(conn, ignore_notice, nullptr);
    return PgConnection(conn);
}

PgConnection::PgConnection(pg_conn* conn) : conn_(conn) {
    const char* host = PQhost(conn);
    const std::string where = host == nullptr ? "" : host;
    target_ = std::string(PQuser(conn)) + "@" + where + ":" + PQport(conn) + "/" + PQdb(conn);
}

PgConnection::PgConnection(PgConnection&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)), target_(std::move(other.target_)) {}

PgConnection& PgConnection::operator=(PgConnection&& other) noexcept {
    if (this != &other) {
        if (conn_ != nullptr) PQfinish(conn_);
        conn_ = std::exchange(other.conn_, nullptr);
        target_ = std::move(other.target_);
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
    Error error{"DATABASE_ERROR",
                "PostgreSQL " + target_ + ": " + std::string(doing) + " failed: " + trimmed(message),
                {},
                {"check that the server is up and that `skillhost db check` reports the schema current"}};
    error.details["backend"] = "postgres";
    error.details["sqlstate"] = state == nullptr ? "" : state;
    return error;
}

Status PgConnection::exec(std::string_view sql) {
    // PQexec stops at the first failing statement and returns its error.
    pg_result* raw = PQexec(conn_, std::string(sql).c_str());
    const auto status = raw == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(raw);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) {
        Error e = error("running `" + std::string(sql.substr(0, 80)) + (sql.size() > 80 ? "...`" : "`"), raw);
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
            Error e{"DATABASE_ERROR",
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
    pg_result* raw = PQexecParams(conn_, std::string(sql).c_str(), static_cast<int>(values.size()), nullptr,
                                  values.data(), nullptr, nullptr, 0);
    const auto status = raw == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(raw);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        Error e = error("running a statement", raw);
        PQclear(raw);
        return e;
    }
    return PgResult(raw);
}

std::string sqlstate_of(const Error& error) {
    if (error.code != "DATABASE_ERROR") return {};
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
