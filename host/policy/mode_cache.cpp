#include "policy/mode_cache.hpp"

namespace skillhost::policy {

Result<std::unique_ptr<ModeCache>> ModeCache::open(std::unique_ptr<ModeStore> store,
                                                   const std::filesystem::path& counter_file) {
    std::unique_ptr<ModeChangeCounter> counter;
    if (!counter_file.empty()) {
        auto opened = ModeChangeCounter::open(counter_file);
        if (!opened) return opened.error();
        counter = std::move(opened.value());
    }
    return std::unique_ptr<ModeCache>(new ModeCache(std::move(store), std::move(counter)));
}

Result<std::optional<CognitiveMode>> ModeCache::stored_mode(std::string_view user_id) const {
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

Result<CognitiveMode> ModeCache::effective_mode(const User& user) const {
    auto stored = stored_mode(user.id);
    if (!stored) return stored.error();
    return stored->value_or(user.default_mode);
}

Status ModeCache::set_mode(std::string_view user_id, CognitiveMode mode) {
    auto st = store_->set_mode(user_id, mode);
    if (counter_) counter_->bump();  // also after a failure: the store's state is then unknown
    return st;
}

Status ModeCache::clear_mode(std::string_view user_id) {
    auto st = store_->clear_mode(user_id);
    if (counter_) counter_->bump();
    return st;
}

std::filesystem::path ModeCache::counter_file() const {
    return counter_ ? counter_->file() : std::filesystem::path{};
}

}  // namespace skillhost::policy
