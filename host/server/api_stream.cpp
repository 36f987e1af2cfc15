#include "server/api_services.hpp"
#include "server/error_codes.hpp"

#include "server/api_error.hpp"
#include "server/api_request.hpp"

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

IdempotentReplies::Begun begin_idempotent(ApiServices& s, ApiRequest& req, std::string_view endpoint) {
    const auto header = req.raw.find("Idempotency-Key");
    if (header == req.raw.end()) return {};
    const std::string key(header->value());
    auto begun = s.idempotent.begin(req.user->user_id + "\n" + std::string(endpoint), key, req.raw.body());
    if (begun.refused) {
        throw ApiFailure(std::move(*begun.refused));
    }
    return begun;
}

bool may_see(const auth::UserContext& user, std::string_view owner_id) {
    return user.role == auth::Role::owner || user.user_id == owner_id;
}

}  // namespace skillhost::server
