// Subscribers to catalog changes, and the RAII handle that keeps one subscribed.
#pragma once

#include "reload/catalog_change.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace skillhost::reload {

using CatalogSubscriber = std::function<void(const CatalogUpdate&)>;

// Shared between a LiveCatalog and the Subscriptions it hands out, so a Subscription may outlive
// the catalog (it then does nothing when released).
class SubscriberList {
public:
    std::uint64_t add(CatalogSubscriber callback);
    // After remove() returns the callback is not running and will not run again — unless remove()
    // is called from inside that very callback, which is allowed.
    void remove(std::uint64_t id);
    // Calls every subscriber in subscription order; an exception from one is logged and the others
    // still run.
    void notify(const CatalogUpdate& update);
    std::size_t size() const;

private:
    struct Slot {
        std::recursive_mutex running;  // recursive: a callback may unsubscribe itself
        bool active = true;
        CatalogSubscriber callback;
    };
    mutable std::mutex mutex_;
    std::map<std::uint64_t, std::shared_ptr<Slot>> slots_;
    std::uint64_t next_id_ = 1;
};

// Unsubscribes when destroyed or reset(). Move-only.
class Subscription {
public:
    Subscription() = default;
    Subscription(std::weak_ptr<SubscriberList> list, std::uint64_t id) : list_(std::move(list)), id_(id) {}
    Subscription(Subscription&& other) noexcept { *this = std::move(other); }
    Subscription& operator=(Subscription&& other) noexcept;
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription() { reset(); }

    void reset();
    bool active() const { return id_ != 0 && !list_.expired(); }

private:
    std::weak_ptr<SubscriberList> list_;
    std::uint64_t id_ = 0;
};

}  // namespace skillhost::reload
