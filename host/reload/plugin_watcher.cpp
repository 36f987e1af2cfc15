#include "reload/plugin_watcher.hpp"
#include "reload/error_codes.hpp"

#include "reload/plugin_file_names.hpp"

#include <spdlog/spdlog.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skillhost::reload {

namespace {

using Clock = std::chrono::steady_clock;

// The debounce key of a full rescan (unit keys are manifest paths, never empty).
const std::filesystem::path kRescanKey;

Error start_failed(const char* what) {
    Error error;
    error.recode(errors::kWatcherStartFailed);
    error.message = std::string("cannot start watching plugin directories: ") + what + ": " + std::strerror(errno) +
                    "; plugins still load at start-up, but changes need a restart or SIGHUP";
    error.details["errno"] = errno;
    if (errno == EMFILE) error.suggestions.push_back("sysctl fs.inotify.max_user_instances=1024");
    return error;
}

}  // namespace

PluginWatcher::PluginWatcher(LiveCatalog& catalog, WatcherOptions options)
    : catalog_(catalog), options_(options), schedule_(options.debounce, options.max_wait) {}

PluginWatcher::~PluginWatcher() {
    stop();
    if (inotify_fd_ >= 0) ::close(inotify_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
}

Status PluginWatcher::start() {
    if (thread_.joinable() || inotify_fd_ >= 0) {
        Error error;
        error.recode(errors::kWatcherAlreadyStarted);
        error.message = "this plugin watcher was already started; create a new one to watch again";
        return error;
    }
    inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0) return start_failed("inotify_init1");
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) return start_failed("eventfd");

    watches_ = std::make_unique<DirectoryWatchSet>(inotify_fd_);
    for (const auto& dir : catalog_.plugin_dirs()) watches_->want(dir, true);
    auto attached = watches_->attach_missing();
    if (!attached) return attached.error();

    // Watches first, then the rescan: a change racing with start-up is either seen by the rescan or
    // queued as an event (then a cheap no-op re-check), never lost.
    catalog_.rescan();
    refresh_units();
    thread_ = std::thread([this] { run(); });
    return {};
}

void PluginWatcher::stop() {
    if (!thread_.joinable()) return;
    stop_requested_.store(true);
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = ::write(wake_fd_, &one, sizeof one);
    thread_.join();
}

void PluginWatcher::request_rescan() noexcept {
    const int saved_errno = errno;  // a signal handler must leave errno as it found it
    rescan_requested_.store(true);
    if (wake_fd_ >= 0) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = ::write(wake_fd_, &one, sizeof one);
    }
    errno = saved_errno;
}

void PluginWatcher::run() {
    while (!stop_requested_.load()) {
        try {
            int timeout_ms = -1;
            if (auto next = schedule_.next_due()) {
                const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now());
                timeout_ms = static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, wait.count()));
            }
            pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
            const int ready = ::poll(fds, 2, timeout_ms);
            if (ready < 0 && errno != EINTR) {
                spdlog::error("plugin watcher: poll failed: {}; watching stops", std::strerror(errno));
                return;
            }
            if (ready > 0 && (fds[1].revents & POLLIN)) {
                std::uint64_t count = 0;
                [[maybe_unused]] const auto got = ::read(wake_fd_, &count, sizeof count);
                if (stop_requested_.load()) return;
            }
            if (rescan_requested_.exchange(false)) schedule_.note_urgent(kRescanKey, Clock::now());
            if (ready > 0 && (fds[0].revents & POLLIN)) drain_inotify();
            run_due_rebuilds();
        } catch (const std::exception& e) {
            // Keep watching: one bad rebuild must not leave the host deaf to later fixes.
            spdlog::error("plugin watcher: {}", e.what());
        }
    }
}

void PluginWatcher::drain_inotify() {
    alignas(inotify_event) char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(inotify_fd_, buffer, sizeof buffer);
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && errno != EINTR)
                spdlog::error("plugin watcher: reading inotify events failed: {}", std::strerror(errno));
            return;
        }
        for (ssize_t offset = 0; offset < n;) {
            const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
            const std::string_view name = event->len ? std::string_view(event->name) : std::string_view();
            handle_event(event->wd, event->mask, name);
            offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
        }
    }
}

void PluginWatcher::handle_event(int wd, std::uint32_t mask, std::string_view name) {
    const auto now = Clock::now();
    if (mask & IN_Q_OVERFLOW) {
        // Events were lost: only a full rescan (cheap for unchanged units) is safe.
        spdlog::warn("plugin watcher: inotify queue overflowed; rescanning every plugin directory");
        schedule_.note(kRescanKey, now);
        return;
    }
    const auto lookup = watches_->find(wd);
    if (mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
        // A watched directory went away: its plugins leave the catalog (rescan), and we watch its
        // parent so that it is picked up again when it comes back.
        const bool still_attached = (mask & IN_MOVE_SELF) != 0;
        const auto lost = watches_->detach(wd, still_attached);
        for (const auto& dir : lost) {
            if (watches_->holds_manifests(dir))
                spdlog::warn("plugin watcher: plugin directory {} is gone", dir.string());
            else  // a plugin's library directory or a package's install, replaced or removed
                spdlog::debug("plugin watcher: {} went away; watching for it to come back", dir.string());
        }
        if (!lost.empty() || lookup.ancestor) {
            schedule_.note(kRescanKey, now);
            attach_missing_directories();
        }
        return;
    }
    if (mask & IN_ISDIR) {
        // A directory appeared: possibly a missing plugin directory or one of its ancestors.
        if ((mask & (IN_CREATE | IN_MOVED_TO)) && watches_->any_missing()) attach_missing_directories();
        return;
    }
    if (name.empty()) return;
    for (const auto& dir : lookup.dirs) on_file_event(dir, name);
}

void PluginWatcher::on_file_event(const std::filesystem::path& dir, std::string_view name) {
    if (is_temporary_name(name)) return;  // the rename to the final name is the event that counts
    const auto now = Clock::now();
    const auto file = dir / std::string(name);
    if (watches_->holds_manifests(dir) && is_manifest_name(name)) {
        spdlog::debug("plugin watcher: {} changed", file.string());
        schedule_.note(file, now);
        return;
    }
    auto it = units_by_library_.find(file);
    if (it == units_by_library_.end()) return;  // not named by any manifest: nothing can load it
    for (const auto& manifest : it->second) {
        spdlog::debug("plugin watcher: library {} of {} changed", file.string(), manifest.string());
        schedule_.note(manifest, now);
    }
}

void PluginWatcher::attach_missing_directories() {
    auto attached = watches_->attach_missing();
    if (!attached) return;  // logged; retried on the next directory event or rescan
    // It may have been filled before the watch existed: look at it as a whole.
    if (!attached->empty()) schedule_.note(kRescanKey, Clock::now());
}

void PluginWatcher::run_due_rebuilds() {
    const auto due = schedule_.take_due(Clock::now());
    if (due.empty()) return;
    spdlog::debug("plugin watcher: rebuilding {} ({} due)", due.front().empty() ? "everything" : due.front().string(),
                  due.size());
    if (due.front() == kRescanKey) {  // the empty path sorts first; a rescan covers every unit
        catalog_.rescan();
    } else {
        for (const auto& manifest : due) {
            auto report = catalog_.reload_unit(manifest);
            if (!report) spdlog::error("plugin watcher: {}", report.error().message);
        }
    }
    refresh_units();
}

void PluginWatcher::refresh_units() {
    units_by_library_.clear();
    for (const auto& unit : catalog_.units()) {
        if (unit.library_file.empty()) continue;
        const auto library = LiveCatalog::normalize(unit.library_file);
        units_by_library_[library].push_back(unit.manifest_file);
        // A manifest may name a library in another directory; its replacement must be seen too.
        const auto library_dir = library.parent_path();
        if (!watches_->holds_manifests(library_dir)) watches_->want(library_dir, false);
    }
    if (watches_->any_missing()) attach_missing_directories();
}

}  // namespace skillhost::reload
