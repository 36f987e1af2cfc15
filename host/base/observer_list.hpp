// Observers that can be added while others are being notified: notification walks an immutable
// copy-on-write list, so it takes the lock only to copy one pointer. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

namespace skillhost {

template <class Observer>
class ObserverList {
public:
    void add(std::shared_ptr<Observer> observer) {
        std::lock_guard lock(mutex_);
        auto next = std::make_shared<std::vector<std::shared_ptr<Observer>>>(*observers_);
        next->push_back(std::move(observer));
        observers_ = std::move(next);
    }

    // Calls `notify(observer)` for each observer, in the order they were added.
    template <class Notify>
    void for_each(Notify&& notify) const {
        std::shared_ptr<const std::vector<std::shared_ptr<Observer>>> current;
        {
            std::lock_guard lock(mutex_);
            current = observers_;
        }
        for (const auto& o : *current) notify(*o);
    }

private:
    mutable std::mutex mutex_;
    std::shared_ptr<const std::vector<std::shared_ptr<Observer>>> observers_ =
        std::make_shared<std::vector<std::shared_ptr<Observer>>>();
};

}  // namespace skillhost
