#include "db/backend_connection.hpp"

#include "db/postgres_connection.hpp"
#include "db/postgres_pool.hpp"
#include "db/postgres_schema.hpp"
#include "db/sqlite_connection.hpp"
#include "db/sqlite_schema.hpp"

#include <sqlite3.h>

#include <charconv>
#include <mutex>

namespace skillhost::db {
namespace {

Result<SqlRows> run_on(SqliteConnection& connection, std::string_view doing, std::string_view sql,
                       const std::vector<SqlValue>& params) {
    SqliteStatement statement(connection, sql);
    if (!statement.prepared()) return connection.error(doing);
    int index = 1;
    for (const auto& param : params) {
        if (const auto* number = std::get_if<std::int64_t>(&param))
            statement.bind(index, *number);
        else if (const auto* text = std::get_if<std::string>(&param))
            statement.bind(index, *text);
        else
            statement.bind_null(index);
        ++index;
    }
    SqlRows out;
    const int columns = statement.columns();
    int rc = 0;
    while ((rc = statement.step()) == SQLITE_ROW) {
        auto& row = out.rows.emplace_back();
        row.reserve(static_cast<std::size_t>(columns));
        for (int column = 0; column < columns; ++column) {
            row.push_back(statement.is_null(column) ? std::nullopt : std::optional(statement.text(column)));
        }
    }
    if (rc != SQLITE_DONE) return connection.error(doing);
    out.affected = sqlite3_changes(connection.handle());
    return out;
}

Result<SqlRows> run_on(PgConnection& connection, std::string_view doing, std::string_view sql,
                       const std::vector<SqlValue>& params) {
    std::vector<PgParam> values;
    values.reserve(params.size());
    for (const auto& param : params) {
        if (const auto* number = std::get_if<std::int64_t>(&param))
            values.emplace_back(std::to_string(*number));
        else if (const auto* text = std::get_if<std::string>(&param))
            values.emplace_back(*text);
        else
            values.emplace_back(std::nullopt);
    }
    const std::string numbered = numbered_placeholders(sql);
    auto result = connection.query(numbered, values);
    if (!result) {
        // The layer below says "running a statement"; say which one.
        Error error = result.error();
        constexpr std::string_view generic = "running a statement";
        if (const auto at = error.message.find(generic); at != std::string::npos) {
            error.message.replace(at, generic.size(), doing);
        }
        return error;
    }
    SqlRows out;
    const int columns = result->columns();
    for (int row = 0; row < result->rows(); ++row) {
        auto& cells = out.rows.emplace_back();
        cells.reserve(static_cast<std::size_t>(columns));
        for (int column = 0; column < columns; ++column) {
            cells.push_back(result->is_null(row, column) ? std::nullopt : std::optional(result->text(row, column)));
        }
    }
    out.affected = result->affected();
    return out;
}

// The session of a transaction in progress: a connection held for the transaction's length.
template <typename Connection>
class HeldSession final : public SqlSession {
public:
    explicit HeldSession(Connection& connection) : connection_(connection) {}
    Result<SqlRows> run(std::string_view doing, std::string_view sql, const std::vector<SqlValue>& params) override {
        return run_on(connection_, doing, sql, params);
    }

private:
    Connection& connection_;
};

// Begins a transaction of type Transaction on `connection`, runs `work`, commits when it succeeded.
template <typename Transaction, typename Connection>
Status transact(Connection& connection, const std::function<Status(SqlSession&)>& work) {
    Transaction transaction(connection);
    if (!transaction.begun()) return transaction.begun();
    HeldSession<Connection> session(connection);
    if (Status done = work(session); !done) return done;  // rolled back by the destructor
    return transaction.commit();
}

class SqliteBackendConnection final : public BackendConnection {
public:
    explicit SqliteBackendConnection(SqliteConnection connection)
        : BackendConnection(StorageBackend::sqlite, connection.file().string()), connection_(std::move(connection)) {}

    Result<SqlRows> run(std::string_view doing, std::string_view sql, const std::vector<SqlValue>& params) override {
        std::lock_guard lock(mutex_);
        return run_on(connection_, doing, sql, params);
    }

    Status transaction(const std::function<Status(SqlSession&)>& work) override {
        std::lock_guard lock(mutex_);
        return transact<SqliteTransaction>(connection_, work);
    }

private:
    std::mutex mutex_;
    SqliteConnection connection_;
};

class PostgresBackendConnection final : public BackendConnection {
public:
    PostgresBackendConnection(std::string url, PgConnection connection)
        : BackendConnection(StorageBackend::postgres, connection.target()),
          pool_(std::move(url), std::move(connection)) {}

    Result<SqlRows> run(std::string_view doing, std::string_view sql, const std::vector<SqlValue>& params) override {
        auto connection = pool_.acquire();
        if (!connection) return connection.error();
        return run_on(**connection, doing, sql, params);
    }

    Status transaction(const std::function<Status(SqlSession&)>& work) override {
        auto connection = pool_.acquire();
        if (!connection) return connection.error();
        return transact<PgTransaction>(**connection, work);
    }

private:
    PgPool pool_;  // concurrent statements run on separate connections
};

}  // namespace

std::int64_t SqlRows::integer(std::size_t row, std::size_t column) const {
    const auto& cell = rows[row][column];
    if (!cell) return 0;
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(cell->data(), cell->data() + cell->size(), value);
    (void)end;
    return ec == std::errc() ? value : 0;
}

std::string numbered_placeholders(std::string_view sql) {
    std::string out;
    out.reserve(sql.size() + 16);
    int next = 1;
    char quote = 0;  // ' or " while inside a literal or identifier
    bool line_comment = false;
    for (std::size_t i = 0; i < sql.size(); ++i) {
        const char c = sql[i];
        if (line_comment) {
            line_comment = c != '\n';
        } else if (quote != 0) {
            if (c == quote) quote = 0;  // a doubled quote closes and reopens: the same result
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
            line_comment = true;
        } else if (c == '?') {
            out += '$' + std::to_string(next++);
            continue;
        }
        out += c;
    }
    return out;
}

Result<std::unique_ptr<BackendConnection>> BackendConnection::open(const StorageLocation& location) {
    if (location.backend == StorageBackend::postgres) {
        auto connection = open_migrated_postgres(location.postgres_url);
        if (!connection) return connection.error();
        return std::unique_ptr<BackendConnection>(
            new PostgresBackendConnection(location.postgres_url, std::move(connection.value())));
    }
    auto connection = open_migrated_sqlite(location.sqlite_file);
    if (!connection) return connection.error();
    return std::unique_ptr<BackendConnection>(new SqliteBackendConnection(std::move(connection.value())));
}

}  // namespace skillhost::db
