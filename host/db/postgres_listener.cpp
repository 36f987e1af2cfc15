#include "db/postgres_listener.hpp"
#include "db/error_codes.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace skillhost::db {
namespace {

bool is_identifier(std::string_view name) {
    if (name.empty() || name.size() > 63) return false;  // PostgreSQL's NAMEDATALEN - 1
    if (name.front() >= '0' && name.front() <= '9') return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

Error broken_connection(PgConnection& connection) {
    Error error{errors::kDatabaseError,
                "PostgreSQL " + connection.target() +
                    ": the listening connection broke: " + std::string(PQerrorMessage(connection.native_handle())),
                {},
                {"reopen the listener and re-read what it follows: notifications may have been missed"}};
    error.details["backend"] = "postgres";
    return error;
}

}  // namespace

Result<std::unique_ptr<PgListener>> PgListener::open(std::string_view url, const std::vector<std::string>& channels) {
    for (const auto& channel : channels) {
        if (!is_identifier(channel)) {
            Error error{errors::kInvalidChannel,
                        "'" + channel.substr(0, 80) +
                            "' is not a notification channel name (lower-case letters, digits and underscores, at "
                            "most 63, not starting with a digit)",
                        {},
                        {}};
            return error;
        }
    }
    auto connection = PgConnection::open(url);
    if (!connection) return connection.error();
    for (const auto& channel : channels)
        if (auto st = connection->exec("LISTEN " + channel); !st) return st.error();
    int pipe_ends[2];
    if (pipe2(pipe_ends, O_CLOEXEC | O_NONBLOCK) != 0)
        return Error{
            errors::kDatabaseError, "cannot create the listener's wake-up pipe (out of file descriptors?)", {}, {}};
    return std::unique_ptr<PgListener>(new PgListener(std::move(connection.value()), pipe_ends[0], pipe_ends[1]));
}

PgListener::PgListener(PgConnection connection, int wake_read, int wake_write)
    : connection_(std::move(connection)), wake_read_(wake_read), wake_write_(wake_write) {}

PgListener::~PgListener() {
    ::close(wake_read_);
    ::close(wake_write_);
}

void PgListener::wake() {
    const char byte = 1;
    // A full pipe already holds a wake-up: nothing more to say.
    (void)!::write(wake_write_, &byte, 1);
}

Result<std::vector<PgNotification>> PgListener::wait(std::chrono::milliseconds timeout) {
    pg_conn* conn = connection_.native_handle();
    std::vector<PgNotification> received;
    const auto drain = [&] {
        while (received.size() < max_notifications_per_wait) {
            PGnotify* note = PQnotifies(conn);
            if (note == nullptr) break;
            received.push_back({note->relname, note->extra == nullptr ? "" : note->extra});
            PQfreemem(note);
        }
    };
    drain();  // queued by an earlier call that hit the limit
    if (!received.empty()) return received;
    pollfd fds[2] = {{PQsocket(conn), POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (fds[0].fd < 0) return broken_connection(connection_);
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<std::int64_t>(timeout.count(), 1 << 30)));
    if (ready < 0 && errno != EINTR) return broken_connection(connection_);
    if (fds[1].revents & POLLIN) {
        char bytes[64];
        while (::read(wake_read_, bytes, sizeof bytes) > 0) {}
    }
    if (fds[0].revents != 0) {
        if (PQconsumeInput(conn) == 0) return broken_connection(connection_);
        drain();
    }
    return received;
}

Status notify(PgConnection& connection, std::string_view channel, std::string_view payload) {
    if (payload.size() > max_notification_payload_bytes)
        return Error{errors::kNotificationTooLarge,
                     "a notification carries an id of at most " + std::to_string(max_notification_payload_bytes) +
                         " bytes, not " + std::to_string(payload.size()),
                     {},
                     {}};
    auto sent = connection.query("SELECT pg_notify($1, $2)", {std::string(channel), std::string(payload)});
    if (!sent) return sent.error();
    return {};
}

}  // namespace skillhost::db
