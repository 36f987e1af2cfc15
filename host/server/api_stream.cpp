#include "server/api_services.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace skillhost::server {

StreamResponse stream_channel(std::shared_ptr<EventChannel> channel, bool numbered, std::int64_t client_has) {
    StreamResponse response;
    response.produce = [channel, numbered, client_has](EventStreamWriter& writer) {
        using clock = std::chrono::steady_clock;
        auto quiet_since = clock::now();
        std::int64_t last_number = client_has;
        while (true) {
            if (writer.stopping()) break;
            auto event = channel->next(std::chrono::milliseconds(250));
            if (event && numbered && !event->id.empty()) {
                // Replayed from the log and then pushed live: the second copy is dropped.
                const std::int64_t number = std::strtoll(event->id.c_str(), nullptr, 10);
                if (number <= last_number) continue;
                last_number = number;
            }
            if (event) {
                if (!writer.send(event->name, event->data, event->id, event->retry)) break;
                quiet_since = clock::now();
                continue;
            }
            if (channel->ended() || writer.client_gone()) break;
            if (clock::now() - quiet_since >= std::chrono::seconds(15)) {
                if (!writer.heartbeat()) break;
                quiet_since = clock::now();
            }
        }
        channel->close();  // the hub stops publishing to it
    };
    return response;
}

bool may_see(const policy::UserContext& user, std::string_view owner_id) {
    return user.role == policy::Role::owner || user.user_id == owner_id;
}

}  // namespace skillhost::server
