#include "app/instance_announcement.hpp"

#include "app/run_ownership.hpp"
#include "app/storage_schema.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {

Result<std::unique_ptr<InstanceAnnouncement>> InstanceAnnouncement::start(const config::HostConfig& config) {
    const db::StorageLocation location = app::storage_location(config);
    if (location.backend != db::StorageBackend::postgres) return std::unique_ptr<InstanceAnnouncement>();
    // The name the sweeper derives from the approval's claim (host, pid, start time).
    auto leases = store::RunLeases::open(location, app::process_owner_text(decisions::current_process_identity()),
                                         config.storage.lease_ttl);
    if (!leases) return leases.error();
    // Before the claim: a claim is never seen without its claimer's announcement.
    if (auto announced = (*leases)->announce_instance(); !announced) return announced.error();
    return std::unique_ptr<InstanceAnnouncement>(
        new InstanceAnnouncement(std::move(leases.value()), config.storage.lease_heartbeat));
}

InstanceAnnouncement::InstanceAnnouncement(std::unique_ptr<store::RunLeases> leases,
                                           std::chrono::milliseconds heartbeat)
    : leases_(std::move(leases)), heartbeat_(heartbeat), thread_([this] { renew(); }) {}

InstanceAnnouncement::~InstanceAnnouncement() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_.notify_all();
    thread_.join();
    if (auto retired = leases_->retire_instance(); !retired)
        spdlog::warn("could not end this process's announcement (it lapses by itself): {}", retired.error().message);
}

void InstanceAnnouncement::renew() {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, heartbeat_, [this] { return stopping_; })) {
        lock.unlock();
        if (auto announced = leases_->announce_instance(); !announced)
            spdlog::warn("could not renew this process's announcement: {}", announced.error().message);
        lock.lock();
    }
}

}  // namespace skillhost::app
