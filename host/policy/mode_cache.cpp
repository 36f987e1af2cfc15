#include "policy/mode_cache.hpp"

#include <algorithm>
#include <thread>

namespace skillhost::policy {

Result<std::unique_ptr<ModeCache>> ModeCache::open(std::unique_ptr<ModeStore> store,
                                                   const std::filesystem::path& counter_file) {
    std::unique_ptr<ModeChangeCounter> counter;
    if (!counter_file.empty()) {
        auto opened = ModeChangeCounter::open(counter_file);
        if (!opened) return opened.error();
        counter = std::move(opened.value());
    }
    return std::unique_ptr<ModeCache>(new ModeCache(std::move(store), std::move(counter), {}));
}

std::unique_ptr<ModeCache> ModeCache::open_shared(std::unique_ptr<ModeStore> store, std::chrono::milliseconds max_age) {
    return std::unique_ptr<ModeCache>(
        new ModeCache(std::move(store), nullptr, std::max(max_age, std::chrono::milliseconds(1))));
}

Result<std::unique_ptr<ModeCache>> ModeCache::open(std::unique_ptr<ModeStore> store,
                                                   const db::StorageLocation& location) {
    if (location.backend == db::StorageBackend::postgres) return open_shared(std::move(store), shared_max_age);
    return open(std::move(store), location.sqlite_file.string() + "-modes");
}

Result<std::optional<auth::CognitiveMode>> ModeCache::aged_stored_mode(std::string_view user_id) const {
    const auto read_from = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(mutex_);
        if (auto it = aged_.find(user_id); it != aged_.end()) {
            if (read_from - it->second.read_from < max_age_) return it->second.mode;
            aged_.erase(it);
        }
    }
    auto stored = store_->stored_mode(user_id);
    if (!stored) return stored.error();  // errors are not kept: the next call asks the store again
    std::lock_guard lock(mutex_);
    if (aged_.size() >= max_entries) aged_.clear();
    // A concurrent read may have begun later (and so seen more): keep the later one.
    auto [it, inserted] = aged_.try_emplace(std::string(user_id), AgedEntry{*stored, read_from});
    if (!inserted && it->second.read_from < read_from) it->second = AgedEntry{*stored, read_from};
    return stored;
}

void ModeCache::wait_out_entries() const {
    if (max_age_.count() == 0) return;
    {
        // This process's entries go at once; the wait is for those of other processes.
        std::lock_guard lock(mutex_);
        aged_.clear();
    }
    std::this_thread::sleep_for(max_age_);
}

Result<std::optional<auth::CognitiveMode>> ModeCache::stored_mode(std::string_view user_id) const {
    if (max_age_.count() > 0) return aged_stored_mode(user_id);
    if (!counter_) return store_->stored_mode(user_id);
    // The counter is read before the store: a change committed after this load bumps the counter
    // past `seen`, so whatever the read below returns is dropped by the next lookup.
    const std::uint64_t seen = counter_->load();
    {
        std::lock_guard lock(mutex_);
        if (!valid_ || read_at_ != seen) {
            entries_.clear();
            read_at_ = seen;
            valid_ = true;
        }
        if (auto it = entries_.find(user_id); it != entries_.end()) return it->second;
    }
    auto stored = store_->stored_mode(user_id);
    if (!stored) return stored.error();  // errors are not kept: the next call asks the store again
    std::lock_guard lock(mutex_);
    // Kept only if no newer count was seen meanwhile (then this read may predate that change).
    if (valid_ && read_at_ == seen) {
        if (entries_.size() >= max_entries) entries_.clear();
        entries_.emplace(std::string(user_id), *stored);
    }
    return stored;
}

Result<auth::CognitiveMode> ModeCache::effective_mode(const auth::User& user) const {
    auto stored = stored_mode(user.id);
    if (!stored) return stored.error();
    return stored->value_or(user.default_mode);
}

Status ModeCache::set_mode(std::string_view user_id, auth::CognitiveMode mode) {
    auto st = store_->set_mode(user_id, mode);
    if (counter_) counter_->bump();  // also after a failure: the store's state is then unknown
    wait_out_entries();
    return st;
}

Status ModeCache::clear_mode(std::string_view user_id) {
    auto st = store_->clear_mode(user_id);
    if (counter_) counter_->bump();
    wait_out_entries();
    return st;
}

std::filesystem::path ModeCache::counter_file() const {
    return counter_ ? counter_->file() : std::filesystem::path{};
}

}  // namespace skillhost::policy
