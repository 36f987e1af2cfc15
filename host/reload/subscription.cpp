#include "reload/subscription.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <vector>

namespace skillhost::reload {

std::uint64_t SubscriberList::add(CatalogSubscriber callback) {
    auto slot = std::make_shared<Slot>();
    slot->callback = std::move(callback);
    std::lock_guard lock(mutex_);
    const std::uint64_t id = next_id_++;
    slots_.emplace(id, std::move(slot));
    return id;
}

void SubscriberList::remove(std::uint64_t id) {
    std::shared_ptr<Slot> slot;
    {
        std::lock_guard lock(mutex_);
        auto it = slots_.find(id);
        if (it == slots_.end()) return;
        slot = std::move(it->second);
        slots_.erase(it);
    }
    // Waits for a running notification of this subscriber (its owner may be about to free what the
    // callback uses); from inside the callback itself the recursive mutex lets this through.
    std::lock_guard running(slot->running);
    slot->active = false;
}

void SubscriberList::notify(const CatalogUpdate& update) {
    std::vector<std::shared_ptr<Slot>> slots;
    {
        std::lock_guard lock(mutex_);
        slots.reserve(slots_.size());
        for (const auto& [id, slot] : slots_) slots.push_back(slot);
    }
    for (const auto& slot : slots) {
        std::lock_guard running(slot->running);
        if (!slot->active) continue;
        try {
            slot->callback(update);
        } catch (const std::exception& e) {
            spdlog::error("catalog subscriber failed on catalog v{}: {}", update.change.new_version, e.what());
        } catch (...) {
            spdlog::error("catalog subscriber failed on catalog v{} with a non-standard exception",
                          update.change.new_version);
        }
    }
}

std::size_t SubscriberList::size() const {
    std::lock_guard lock(mutex_);
    return slots_.size();
}

Subscription& Subscription::operator=(Subscription&& other) noexcept {
    if (this != &other) {
        reset();
        list_ = std::move(other.list_);
        id_ = other.id_;
        other.id_ = 0;
    }
    return *this;
}

void Subscription::reset() {
    if (id_ == 0) return;
    if (auto list = list_.lock()) list->remove(id_);
    id_ = 0;
    list_.reset();
}

}  // namespace skillhost::reload
