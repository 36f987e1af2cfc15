// A CLI process that executes an approved call on PostgreSQL (`skillhost approvals approve`)
// announces itself the way a daemon does, under the same name its approval claim carries, and
// renews the announcement every storage.lease_heartbeat_ms while it works. If it dies (on any
// machine) the announcement lapses within storage.lease_ttl_ms and the daemons' elected sweeper
// marks the approval failed instead of leaving it `approved` forever; on a clean exit it retires.
#pragma once

#include "base/error.hpp"
#include "config/host_config.hpp"
#include "store/run_lease.hpp"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace skillhost::app {

class InstanceAnnouncement {
public:
    // Announces this process; null (nothing to do) on SQLite, where only this machine's processes
    // claim work and their process identity already tells whether they live.
    static Result<std::unique_ptr<InstanceAnnouncement>> start(const config::HostConfig& config);
    ~InstanceAnnouncement();  // stops renewing and retires the announcement
    InstanceAnnouncement(const InstanceAnnouncement&) = delete;
    InstanceAnnouncement& operator=(const InstanceAnnouncement&) = delete;

private:
    InstanceAnnouncement(std::unique_ptr<store::RunLeases> leases, std::chrono::milliseconds heartbeat);
    void renew();

    std::unique_ptr<store::RunLeases> leases_;
    const std::chrono::milliseconds heartbeat_;
    std::mutex mutex_;
    std::condition_variable stop_;
    bool stopping_ = false;
    std::thread thread_;  // last: started after everything it uses
};

}  // namespace skillhost::app
