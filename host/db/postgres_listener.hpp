// LISTEN/NOTIFY between instances sharing a PostgreSQL database. A notification carries only an
// id (a run id, an approval id): the listener re-reads the tables, so a lost or merged
// notification costs a delay, never a wrong state. The listener owns its own connection, since
// a listening connection must not be shared with statements of other threads.
#pragma once

#include "base/error.hpp"
#include "db/postgres_connection.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::db {

struct PgNotification {
    std::string channel;
    std::string payload;  // an id
};

// Channels skillhost notifies on.
inline constexpr std::string_view run_events_channel = "skillhost_run_events";  // payload: run id

// PostgreSQL refuses payloads of 8000 bytes or more; ids are far shorter.
inline constexpr std::size_t max_notification_payload_bytes = 7999;
// The most notifications one wait() returns; the rest stay queued for the next call.
inline constexpr std::size_t max_notifications_per_wait = 1000;

class PgListener {
public:
    // Connects and LISTENs on each channel (identifiers: letters, digits, underscores).
    // DATABASE_ERROR when the server cannot be reached; INVALID_CHANNEL for another name.
    static Result<std::unique_ptr<PgListener>> open(std::string_view url, const std::vector<std::string>& channels);
    ~PgListener();
    PgListener(const PgListener&) = delete;
    PgListener& operator=(const PgListener&) = delete;

    // Returns the notifications that arrived, waiting up to `timeout` for the first one. Empty
    // after the timeout or after wake(). DATABASE_ERROR when the connection broke (the caller
    // reopens and re-reads everything it follows, since notifications may have been missed).
    Result<std::vector<PgNotification>> wait(std::chrono::milliseconds timeout);
    // Makes a wait() on another thread return now (shutdown). Safe from any thread.
    void wake();

private:
    PgListener(PgConnection connection, int wake_read, int wake_write);
    PgConnection connection_;
    int wake_read_ = -1;
    int wake_write_ = -1;
};

// Sends a notification on `connection` (delivered when its transaction commits).
Status notify(PgConnection& connection, std::string_view channel, std::string_view payload);

}  // namespace skillhost::db
