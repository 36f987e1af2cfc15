#include "plugin/runner_connection.hpp"
#include "plugin/spawn_session.hpp"
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/data_dir_budget.hpp"
#include "plugin/host_request_pool.hpp"
#include "plugin/runner_cgroups.hpp"
#include "plugin/runner_output.hpp"
#include "plugin/supervision_counters.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace skillhost::plugin {
namespace {

using Clock = std::chrono::steady_clock;

// How long a runner may take to load its plugin before the host gives up on it.
constexpr auto start_timeout = std::chrono::seconds(20);
// How long a closed runner may take to exit on its own before it is killed.
constexpr auto exit_grace = std::chrono::seconds(2);
// How long an ended runner's reader waits for a caller still writing its call to learn whether the
// frame got through (so a crash it caused is counted against that call).
constexpr auto send_settle_limit = std::chrono::seconds(1);
// How often a waiting call looks at its cancellation flag (nobody signals it).
constexpr auto cancel_poll = std::chrono::milliseconds(10);
// While calls are in flight the callers read; the background thread looks this often whether the
// connection has gone quiet, then reads until a caller needs the socket again.
constexpr auto background_check = std::chrono::milliseconds(20);
// How often the host counts a runner's threads when no cgroup bounds them (isolation.max_tasks):
// often while calls run, less often between them (a plugin's threads may outlive its call, but an
// idle runner should cost next to nothing: 10 reads of /proc a second).
constexpr auto task_check_period = background_check;
constexpr auto idle_task_check_period = std::chrono::milliseconds(100);
// How often the data directory is measured against its budget while calls run (a walk of its
// entries; a plugin writing flat out gets this much past the budget before it is killed).
constexpr auto disk_check_period = std::chrono::milliseconds(20);
// Host services (completions, sampling, questions) a runner may have outstanding at once; a runner
// asking for more is killed (a plugin needs one per call thread, and calls in a runner are few).
constexpr int max_host_requests = 16;
// Host -> runner frames: the arguments of one call, bounded like any request body.
constexpr std::size_t max_frame_overhead = 64 * 1024;

// An error the host answers the runner with, as the outcome a plugin's error would be.
RawOutcome host_error(const Error& error) {
    return RawOutcome::from_error(error);
}

RawOutcome host_error(const ErrorCode& code, std::string message, boost::json::object details) {
    return host_error(Error{code, std::move(message), std::move(details)});
}

// The environment a runner starts with: nothing of the host's (tokens, keys, proxies), only what
// the dynamic linker and the sanitizers of a test build need.
std::vector<std::string> runner_environment() {
    std::vector<std::string> env{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"})
        if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
    return env;
}

}  // namespace

std::string describe_status(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return "killed by signal " + std::to_string(sig) + " (" + signal_name(sig) + ")";
    }
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    return "ended with wait status " + std::to_string(status);
}

std::string signal_name(int signal) {
    switch (signal) {
        case SIGSEGV: return "SIGSEGV";
        case SIGABRT: return "SIGABRT";
        case SIGKILL: return "SIGKILL";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGILL: return "SIGILL";
        case SIGXCPU: return "SIGXCPU";
        case SIGTERM: return "SIGTERM";
        case SIGSYS: return "SIGSYS";
        case SIGTRAP: return "SIGTRAP";
        default: return "signal " + std::to_string(signal);
    }
}

RunnerChannel::~RunnerChannel() {
    ::close(fd);
}

bool RunnerChannel::send(wire::FrameType type, std::uint64_t id, std::string_view payload) {
    std::lock_guard lock(write_mutex);
    return wire::write_frame(fd, type, id, payload);
}

Result<std::shared_ptr<RunnerConnection>> RunnerConnection::start(RunnerLaunch launch) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        const std::string reason = std::strerror(errno);
        RunnerCgroups::remove_leaf(launch.cgroup_leaf);
        RunnerCgroups::remove_leaf(launch.cgroup_pids_leaf);
        return Error{errors::kRunnerStartFailed, "cannot create the socket to a plugin runner for '" +
                                                     launch.plugin_name + "': " + reason +
                                                     "; check the process's open-file limit"};
    }
    // Its stdout and stderr: a pipe only the host reads (never the daemon's terminal or log).
    int output[2];
    if (::pipe2(output, O_CLOEXEC) != 0) {
        const std::string reason = std::strerror(errno);
        ::close(fds[0]);
        ::close(fds[1]);
        RunnerCgroups::remove_leaf(launch.cgroup_leaf);
        RunnerCgroups::remove_leaf(launch.cgroup_pids_leaf);
        return Error{errors::kRunnerStartFailed, "cannot create the output pipe of a plugin runner for '" +
                                                     launch.plugin_name + "': " + reason +
                                                     "; check the process's open-file limit"};
    }
    // The runner finds its end of the socket as fd 3 (dup2 clears close-on-exec for it only).
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 3);
    posix_spawn_file_actions_adddup2(&actions, output[1], 1);
    posix_spawn_file_actions_adddup2(&actions, output[1], 2);
    std::vector<std::string> argv_strings{launch.runner.string()};
    argv_strings.insert(argv_strings.end(), launch.args.begin(), launch.args.end());
    pid_t pid = 0;
    const int spawned =
        spawn_in_own_session(pid, launch.runner.string(), actions, std::move(argv_strings), runner_environment());
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    ::close(output[1]);
    if (spawned != 0) {
        ::close(fds[0]);
        ::close(output[0]);
        RunnerCgroups::remove_leaf(launch.cgroup_leaf);
        RunnerCgroups::remove_leaf(launch.cgroup_pids_leaf);
        Error error{errors::kRunnerStartFailed, "cannot start the plugin runner " + launch.runner.string() + " for '" +
                                                    launch.plugin_name + "': " + std::strerror(spawned) +
                                                    "; reinstall skillhost or set isolation.runner in skillhost.yaml"};
        error.details["runner"] = launch.runner.string();
        return error;
    }

    RunnerOutput::shared().watch(output[0], launch.plugin_name, launch.user_id.empty() ? "-" : launch.user_id);
    std::shared_ptr<RunnerConnection> connection(new RunnerConnection(std::move(launch), pid, fds[0]));
    supervision_counters().runner_started(connection->launch_.plugin_name, pid);
    connection->background_ = std::thread([raw = connection.get()] { raw->background_loop(); });

    std::unique_lock lock(connection->mutex_);
    const bool decided =
        connection->state_changed_.wait_for(lock, start_timeout, [&] { return connection->state_ != State::starting; });
    // A runner that was ready may already have retired idle (or died) when a starved starter wakes:
    // it is still returned, its call() answers nullopt, and the caller takes another.
    if (connection->state_ == State::ready || connection->was_ready_) return connection;
    const std::string& name = connection->launch_.plugin_name;
    if (!decided) {
        lock.unlock();
        connection->kill("it did not finish loading within " + std::to_string(start_timeout.count()) + " s");
        return Error{errors::kRunnerStartFailed,
                     "the runner for plugin '" + name + "' did not finish loading it within " +
                         std::to_string(start_timeout.count()) + " s; check that its init() returns"};
    }
    return connection->load_error_;  // load_failed: the runner's report; ended: finish() wrote why
}

RunnerConnection::RunnerConnection(RunnerLaunch launch, pid_t pid, int fd)
    : launch_(std::move(launch)),
      pid_(pid),
      channel_(std::make_shared<RunnerChannel>(fd)),
      started_at_(Clock::now()),
      // Without it (out of descriptors) the background thread polls at background_check instead.
      kick_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      frames_(std::max(launch_.max_result_bytes, wire::max_extension_answer_bytes) + max_frame_overhead) {
    auto answering = std::make_shared<PluginHostContext>();
    answering->plugin_name = launch_.plugin_name;
    answering->completions = launch_.completions;
    answering->storage = launch_.storage;
    answering->llm_allowed = launch_.llm_allowed;
    answering_ = std::move(answering);
}

RunnerConnection::~RunnerConnection() {
    begin_close();
    if (background_.joinable()) background_.join();
    if (kick_fd_ >= 0) ::close(kick_fd_);
}

void RunnerConnection::begin_close() {
    {
        std::lock_guard lock(mutex_);
        closing_ = true;
    }
    // The runner reads EOF, finishes its calls, calls the plugin's shutdown() and exits.
    ::shutdown(channel_->fd, SHUT_RDWR);
    background_wake_.notify_all();
}

bool RunnerConnection::retired_idle() const {
    std::lock_guard lock(mutex_);
    return retiring_ && !broken_ && kill_reason_.empty();
}

bool RunnerConnection::accepting() const {
    std::lock_guard lock(mutex_);
    return state_ == State::ready && !retiring_ && !closing_ && !broken_;
}

void RunnerConnection::kill(const std::string& reason, std::string_view limit) {
    {
        std::lock_guard lock(mutex_);
        if (kill_reason_.empty()) {
            kill_reason_ = reason;
            kill_limit_ = limit;
        }
    }
    if (!reaped_.load()) ::kill(pid_, SIGKILL);
}

bool RunnerConnection::check_disk() {
    if (launch_.disk_budget_bytes == 0 || launch_.data_dir.empty() || reaped_.load()) return false;
    const auto now = Clock::now();
    // A large directory takes a while to walk: look less often then (10 times the walk).
    if (now - last_disk_check_.load() < std::max<Clock::duration>(disk_check_period, 10 * last_disk_walk_))
        return false;
    last_disk_check_.store(now);
    const DataDirUsage usage = measure_data_dir(launch_.data_dir);
    last_disk_walk_ = Clock::now() - now;
    std::optional<Error> over =
        data_dir_over_budget(usage, launch_.disk_budget_bytes, launch_.plugin_name, launch_.data_dir);
    if (!over) return false;
    kill(over->message, "disk_budget");
    return true;
}

bool RunnerConnection::grandchild(pid_t pid) const {
    const pid_t init = parent_of(pid);
    return init > 0 && parent_of(init) == pid_;
}

pid_t RunnerConnection::process_pid() const {
    std::lock_guard lock(mutex_);
    return sandboxed_pid_ != 0 ? sandboxed_pid_ : pid_;
}

pid_t parent_of(pid_t pid) {
    const std::string path = "/proc/" + std::to_string(pid) + "/stat";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[512];
    const ssize_t got = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (got <= 0) return -1;
    const std::string_view stat(text, static_cast<std::size_t>(got));
    // "pid (comm) state ppid ...": counted from the last ')', since comm may hold anything.
    const std::size_t at = stat.rfind(')');
    if (at == std::string_view::npos || at + 4 >= stat.size()) return -1;
    return static_cast<pid_t>(std::strtol(text + at + 4, nullptr, 10));
}

bool RunnerConnection::check_tasks() {
    if (launch_.max_tasks == 0 || reaped_.load()) return false;
    if (!launch_.pids_events.empty()) {
        // "max N": N thread creations the kernel refused at pids.max.
        char text[128] = {};
        const int fd = ::open(launch_.pids_events.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return false;
        const ssize_t got = ::read(fd, text, sizeof text - 1);
        ::close(fd);
        const char* max = got > 0 ? std::strstr(text, "max ") : nullptr;
        if (!max || std::strtoull(max + 4, nullptr, 10) == 0) return false;
        kill("it tried to start more threads than its cgroup's pids.max allows: over its limit of " +
                 std::to_string(launch_.max_tasks) + " (isolation.max_tasks in skillhost.yaml)",
             "max_tasks");
        return true;
    }
    // /proc/<pid>/stat: "pid (comm) state ..." and the thread count is field 20; comm may hold
    // spaces and parentheses, so fields are counted from the last ')'. The pid is this host's
    // unreaped child, so it cannot name another process.
    const pid_t counted = process_pid();
    if (counted != pid_ && !grandchild(counted)) return false;  // it has ended; the keeper follows
    const std::string path = "/proc/" + std::to_string(counted) + "/stat";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char text[1024];
    const ssize_t got = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (got <= 0) return false;
    const std::string_view stat(text, static_cast<std::size_t>(got));
    std::size_t at = stat.rfind(')');
    if (at == std::string_view::npos) return false;
    for (int field = 2; field < 20 && at != std::string_view::npos; ++field) at = stat.find(' ', at + 1);
    if (at == std::string_view::npos) return false;
    const std::uint64_t threads = std::strtoull(text + at + 1, nullptr, 10);
    if (threads <= launch_.max_tasks) return false;
    kill("it ran " + std::to_string(threads) + " threads, over its limit of " + std::to_string(launch_.max_tasks) +
             " (isolation.max_tasks in skillhost.yaml)",
         "max_tasks");
    return true;
}

namespace {

wire::CallFrame call_frame(const Call& call, std::string_view args_json) {
    wire::CallFrame frame{call, std::string(args_json), 0};
    if (call.control && call.control->path_allowed) frame.flags |= wire::call_has_path_rules;
    return frame;
}

}  // namespace

std::optional<RawOutcome> RunnerConnection::call(const Call& context, std::string_view args_json) {
    return exchange(context, wire::FrameType::call, wire::encode(call_frame(context, args_json)), {},
                    launch_.max_result_bytes);
}

std::optional<RawOutcome> RunnerConnection::call_extension(const Call& context, wire::ExtensionCall request,
                                                           std::string entry) {
    request.call = call_frame(context, {});
    const auto max_bytes = static_cast<std::size_t>(request.max_bytes);
    return exchange(context, wire::FrameType::extension_call, wire::encode(request), std::move(entry), max_bytes);
}

std::optional<RawOutcome> RunnerConnection::exchange(const Call& context, wire::FrameType type,
                                                     std::string_view payload, std::string entry,
                                                     std::size_t max_answer_bytes) {
    // A runner whose data went over its budget takes no more calls (the tripwire below may have
    // missed a call that wrote fast). Measured only after a call long enough to write much, or a
    // while after the last look, so quick calls pay nothing for it.
    const auto began = Clock::now();
    if (launch_.disk_budget_bytes > 0 && !launch_.data_dir.empty() &&
        (last_exchange_micros_.load() > 5000 || began - last_disk_check_.load() > std::chrono::seconds(1))) {
        last_disk_check_.store(began);
        if (std::optional<Error> over = data_dir_over_budget(
                measure_data_dir(launch_.data_dir), launch_.disk_budget_bytes, launch_.plugin_name, launch_.data_dir)) {
            kill(over->message, "disk_budget");
            return host_error(*over);
        }
    }
    struct Timed {
        std::atomic<std::int64_t>& micros;
        Clock::time_point began;
        ~Timed() { micros.store(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - began).count()); }
    } timed{last_exchange_micros_, began};
    auto pending = std::make_shared<Pending>();
    pending->control = context.control;
    pending->skill_id = context.skill_id;
    pending->user_id = context.user_id;
    pending->entry = std::move(entry);
    pending->max_payload = max_answer_bytes + max_frame_overhead;
    pending->sending = true;
    std::uint64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        if (state_ != State::ready || retiring_ || closing_ || broken_) return std::nullopt;
        id = next_call_++;
        pending_.emplace(id, pending);
    }
    const bool sent = channel_->send(type, id, payload);
    {
        std::lock_guard lock(mutex_);
        pending->sending = false;
        state_changed_.notify_all();  // finish() may wait to learn whether this call reached the runner
        if (!sent) {
            // The runner is gone (EPIPE) and no whole frame of this call reached it, so nothing of the
            // call ran: it runs in a fresh runner instead of failing. The reader still reaps this one
            // and counts its death toward quarantine.
            broken_ = true;
            pending_.erase(id);
            if (pending_.empty()) last_call_end_ = Clock::now();
            background_wake_.notify_all();
            return std::nullopt;
        }
    }

    std::optional<Clock::time_point> deadline;
    if (context.deadline_unix_ms > 0) {
        const auto now_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        deadline = Clock::now() + std::chrono::milliseconds(context.deadline_unix_ms - now_ms);
    }
    bool cancel_sent = false;
    bool kicked = false;
    constexpr auto never = Clock::time_point::max();
    Clock::time_point kill_at = deadline ? *deadline + launch_.kill_grace : never;
    std::unique_lock lock(mutex_);
    while (!pending->done) {
        if (context.control && !cancel_sent && context.control->cancelled.load()) {
            cancel_sent = true;
            lock.unlock();
            channel_->send(wire::FrameType::cancel, id, {});
            lock.lock();
            kill_at = std::min(kill_at, Clock::now() + launch_.kill_grace);
            continue;
        }
        const auto now = Clock::now();
        if (now >= kill_at) {
            lock.unlock();
            kill("skill '" + context.skill_id + "' was still running " + std::to_string(launch_.kill_grace.count()) +
                 " ms after its deadline or cancellation");
            lock.lock();
            kill_at = never;  // the reader ends the call once the process is gone
            continue;
        }
        auto wake = kill_at;
        if (context.control && !cancel_sent) wake = std::min(wake, now + cancel_poll);
        if (!reader_busy_) {
            // Read the answer on this thread: no hand-off from a reader thread on the way back.
            reader_busy_ = true;
            lock.unlock();
            read_frames(pending.get(), wake, false);
            lock.lock();
            reader_busy_ = false;
            if (pending->done) pass_reader_role();
            continue;
        }
        if (background_reading_ && !kicked && kick_fd_ >= 0) {
            kicked = true;
            const std::uint64_t one = 1;
            [[maybe_unused]] const ssize_t written = ::write(kick_fd_, &one, sizeof one);
        }
        pending->wants_reader = true;
        if (wake == never)
            pending->wake.wait(lock);
        else
            pending->wake.wait_until(lock, wake);
        pending->wants_reader = false;
    }
    return std::move(pending->outcome);
}

void RunnerConnection::pass_reader_role() {
    for (auto& [id, pending] : pending_) {
        if (pending->wants_reader) {
            pending->wake.notify_one();
            return;
        }
    }
    // No call left: the background thread takes the socket over, but only after a quiet
    // background_check (background_loop). Waking it after every call would cost a wake-up and a
    // mutex hand-off per call while calls follow each other.
    if (pending_.empty()) last_call_end_ = Clock::now();
}

void RunnerConnection::background_loop() {
    std::unique_lock lock(mutex_);
    // The thread count is checked here, while calls run and between them (a plugin's threads may
    // outlive its call), whichever thread reads the socket.
    Clock::time_point last_task_check{};
    const auto task_check_due = [&] {  // mutex_ held
        return last_task_check + (pending_.empty() ? idle_task_check_period : task_check_period);
    };
    for (;;) {
        if (state_ == State::ended) return;
        if (watches_limits() && Clock::now() >= task_check_due()) {
            lock.unlock();
            const bool killed = check_tasks() || check_disk();
            lock.lock();
            last_task_check = Clock::now();
            // Read the end of the stream now, not after the quiet period, so the next call starts
            // a new runner instead of reaching the killed one.
            if (killed) last_call_end_ = {};
            continue;
        }
        if (!reader_busy_ && pending_.empty()) {
            // Log lines, idle notices and a crash between calls wait this long at most.
            const auto quiet_from = last_call_end_ + background_check;
            if (!closing_ && Clock::now() < quiet_from) {
                background_wake_.wait_until(lock, quiet_from);
                continue;
            }
            reader_busy_ = true;
            background_reading_ = true;
            lock.unlock();
            read_frames(nullptr, watches_limits() ? task_check_due() : Clock::time_point::max(), true);
            lock.lock();
            reader_busy_ = false;
            background_reading_ = false;
            pass_reader_role();
            continue;
        }
        background_wake_.wait_for(lock, background_check);
    }
}

RunnerConnection::ReadStop RunnerConnection::read_frames(const Pending* mine, Clock::time_point until,
                                                         bool watch_kick) {
    const bool kickable = watch_kick && kick_fd_ >= 0;
    pollfd watched[2] = {{channel_->fd, POLLIN, 0}, {kick_fd_, POLLIN, 0}};
    wire::Frame frame;
    for (;;) {
        // Only the reader sets `done`, and this thread is the reader.
        if (mine && mine->done) return ReadStop::done;
        if (frames_.has_frame()) {
            if (!handle_next(frame)) return ReadStop::ended;
            continue;
        }
        int timeout_ms = -1;
        if (until != Clock::time_point::max()) {
            const auto left = until - Clock::now();
            if (left <= Clock::duration::zero()) return ReadStop::timeout;
            timeout_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
        } else if (watch_kick && !kickable) {
            timeout_ms = static_cast<int>(background_check.count());
        }
        const int ready = ::poll(watched, kickable ? 2 : 1, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            if (watch_kick && !kickable) return ReadStop::kicked;
            continue;  // the loop re-checks `until`
        }
        if (ready > 0 && kickable && (watched[1].revents & POLLIN)) {
            std::uint64_t count = 0;
            [[maybe_unused]] const ssize_t got = ::read(kick_fd_, &count, sizeof count);
            return ReadStop::kicked;
        }
        if (ready < 0) {
            end_of_stream(wire::ReadStatus::broken, 0);
            return ReadStop::ended;
        }
        if (!handle_next(frame)) return ReadStop::ended;
    }
}

bool RunnerConnection::handle_next(wire::Frame& frame) {
    const wire::ReadStatus status = frames_.read(channel_->fd, frame);
    if (status != wire::ReadStatus::frame) {
        end_of_stream(status, frame.header.size);
        return false;
    }
    handle(frame);
    return true;
}

void RunnerConnection::end_of_stream(wire::ReadStatus status, std::size_t frame_size) {
    if (status == wire::ReadStatus::too_large)
        kill("it sent a frame of " + std::to_string(frame_size) + " bytes, over the limit of " +
             std::to_string(std::max(launch_.max_result_bytes, wire::max_extension_answer_bytes) + max_frame_overhead));
    finish(reap());
}

void RunnerConnection::handle(wire::Frame& frame) {
    using wire::FrameType;
    struct SawFrame {
        RunnerConnection& c;
        FrameType type;
        ~SawFrame() {
            if (type == FrameType::sandboxed) return;
            std::lock_guard lock(c.mutex_);
            c.saw_frame_ = true;
        }
    } saw{*this, static_cast<FrameType>(frame.header.type)};
    switch (static_cast<FrameType>(frame.header.type)) {
        case FrameType::sandboxed: {
            // Only the keeper's, first, before any plugin code could write to the socket.
            wire::PayloadReader r(frame.payload);
            const std::int64_t pid = r.integer();
            std::lock_guard lock(mutex_);
            if (!r.ok() || state_ != State::starting || sandboxed_pid_ != 0 || saw_frame_ || pid <= 0) return;
            if (grandchild(static_cast<pid_t>(pid))) sandboxed_pid_ = static_cast<pid_t>(pid);
            return;
        }
        case FrameType::ready: {
            std::optional<wire::ReadyInfo> info = wire::decode_ready(frame.payload);
            std::lock_guard lock(mutex_);
            if (state_ != State::starting) return;  // a second one is a plugin speaking: ignored
            if (info) {
                ready_ = std::move(*info);
                state_ = State::ready;
                was_ready_ = true;
            } else {
                state_ = State::load_failed;
                load_error_ = Error{errors::kRunnerProtocolError, "the runner sent an unreadable ready message"};
            }
            state_changed_.notify_all();
            return;
        }
        case FrameType::load_failed: {
            std::lock_guard lock(mutex_);
            load_error_ = wire::decode_error(frame.payload);
            state_ = State::load_failed;
            state_changed_.notify_all();
            return;
        }
        case FrameType::result: {
            std::unique_lock lock(mutex_);
            auto found = pending_.find(frame.header.id);
            if (found == pending_.end()) return;  // a call already ended by a kill
            if (frame.payload.size() > found->second->max_payload) {
                // The frame reader admits the largest answer of any call; this call's is smaller.
                const std::string reason = "it sent a result of " + std::to_string(frame.payload.size()) +
                                           " bytes, over the limit of " + std::to_string(found->second->max_payload) +
                                           " for that call";
                const char* limit = found->second->entry.empty() ? "max_result_bytes" : "extension_answer_bytes";
                lock.unlock();
                kill(reason, limit);  // the call ends with PLUGIN_KILLED once the process is gone
                return;
            }
            std::optional<RawOutcome> outcome = wire::decode_outcome(frame.payload);
            std::shared_ptr<Pending> pending = std::move(found->second);
            pending_.erase(found);
            shut_down_if_drained();
            pending->outcome = outcome ? std::move(*outcome)
                                       : host_error(errors::kRunnerProtocolError,
                                                    "the runner of plugin '" + launch_.plugin_name +
                                                        "' sent an unreadable result; report this as a skillhost bug",
                                                    {{"plugin", launch_.plugin_name}, {"skill", pending->skill_id}});
            pending->done = true;
            if (pending->answering) pending->answering->control.cancelled.store(true);
            pending->wake.notify_one();
            return;
        }
        case FrameType::progress: {
            CallControl* control = nullptr;
            {
                std::lock_guard lock(mutex_);
                auto found = pending_.find(frame.header.id);
                if (found == pending_.end()) return;
                control = found->second->control;
            }
            wire::PayloadReader r(frame.payload);
            const double progress = r.real();
            const double total = r.real();
            const std::string_view message = r.text();
            if (!r.ok()) return;
            // The call cannot end meanwhile (only this thread, the reader, ends calls).
            if (control && control->services) {
                try {
                    control->services->progress(progress, total, message);
                } catch (...) {
                    logger_->warn("[plugin {}] a progress listener failed", launch_.plugin_name);
                }
            }
            return;
        }
        case FrameType::host_request: answer_host_request(frame.header.id, frame.payload); return;
        case FrameType::content:
        case FrameType::call_log: forward_call_service(frame); return;
        case FrameType::log: {
            wire::PayloadReader r(frame.payload);
            const std::int64_t level = r.integer();
            const std::string_view message = r.text();
            if (!r.ok()) return;
            const auto spd = level <= SKILLHOST_LOG_DEBUG  ? spdlog::level::debug
                             : level == SKILLHOST_LOG_INFO ? spdlog::level::info
                             : level == SKILLHOST_LOG_WARN ? spdlog::level::warn
                                                           : spdlog::level::err;
            logger_->log(spd, "[plugin {}] {}", launch_.plugin_name, message);
            return;
        }
        case FrameType::idle: {
            std::lock_guard lock(mutex_);
            retiring_ = true;
            shut_down_if_drained();
            return;
        }
        default: return;  // a frame type from a newer runner: ignored
    }
}

void RunnerConnection::shut_down_if_drained() {
    if (retiring_ && pending_.empty()) ::shutdown(channel_->fd, SHUT_WR);
}

void RunnerConnection::reply(std::uint64_t request_id, const RawOutcome& answer) {
    channel_->send(wire::FrameType::host_reply, request_id, wire::encode(answer));
}

std::optional<RunnerConnection::Admitted> RunnerConnection::admit_host_request(std::uint64_t request_id,
                                                                               std::uint64_t call_sequence) {
    const std::string& plugin = launch_.plugin_name;
    Admitted admitted;
    // Sequence 0 is a request outside any call: answered as in the host, where every extension
    // refuses it (admitted.call stays null).
    if (call_sequence != 0) {
        std::lock_guard lock(mutex_);
        const auto found = pending_.find(call_sequence);
        if (found == pending_.end() || found->second->done) {
            reply(request_id, host_error(errors::kHostRequestWithoutCall,
                                         "the runner of plugin '" + plugin +
                                             "' asked for a host service outside any call in flight; host services "
                                             "answer only during a call, for that call's user",
                                         {{"plugin", plugin}}));
            return std::nullopt;
        }
        Pending& pending = *found->second;
        if (!pending.answering) {
            // The host's record of the call, never what the runner says: made on the first request.
            auto answering = std::make_shared<AnsweringCall>();
            const CallControl* control = pending.control;
            if (control && control->call) answering->call = *control->call;
            answering->call.skill_id = pending.skill_id;
            answering->call.user_id = pending.user_id;
            answering->call.control = &answering->control;
            if (control) {
                answering->control.services = control->services;
                answering->control.path_allowed = control->path_allowed;
            }
            answering->control.call = &answering->call;
            pending.answering = std::move(answering);
        }
        admitted.call = pending.answering;
    }
    if (host_requests_->fetch_add(1) >= max_host_requests) {
        host_requests_->fetch_sub(1);
        reply(request_id, host_error(errors::kTooManyHostRequests,
                                     "the runner of plugin '" + plugin + "' had more than " +
                                         std::to_string(max_host_requests) + " host requests outstanding",
                                     {{"plugin", plugin}}));
        kill("it asked for more than " + std::to_string(max_host_requests) + " host services at once", "host_requests");
        return std::nullopt;
    }
    admitted.slot = std::shared_ptr<void>(nullptr, [count = host_requests_](void*) { count->fetch_sub(1); });
    return admitted;
}

void RunnerConnection::answer_later(std::uint64_t request_id, std::function<void()> answer) {
    if (answer_host_request_later(std::move(answer))) return;
    RawOutcome busy = host_error(errors::kTooManyHostRequests,
                                 "the host has " + std::to_string(host_request_queue) +
                                     " requests of plugin runners waiting; try again in a moment",
                                 {{"plugin", launch_.plugin_name}});
    busy.status = SKILLHOST_STATUS_UNAVAILABLE;
    reply(request_id, busy);
}

RunnerExit RunnerConnection::reap() {
    RunnerExit exit;
    int status = 0;
    const auto give_up = Clock::now() + exit_grace;
    pid_t got = 0;
    while ((got = ::waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (got == 0) {
        // It closed the socket but lives on (a plugin closing fd 3, or a hang in shutdown()).
        ::kill(pid_, SIGKILL);
        while ((got = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {}
    }
    reaped_.store(true);
    RunnerCgroups::remove_leaf(launch_.cgroup_leaf);
    RunnerCgroups::remove_leaf(launch_.cgroup_pids_leaf);
    supervision_counters().runner_ended(launch_.plugin_name, pid_);
    if (got == pid_) {
        if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
        if (WIFEXITED(status)) exit.exit_status = WEXITSTATUS(status);
        exit.description = describe_status(status);
    } else {
        exit.description = "ended (its status could not be read)";
    }
    return exit;
}

void RunnerConnection::finish(RunnerExit exit) {
    std::map<std::uint64_t, std::shared_ptr<Pending>> orphans;
    {
        std::unique_lock lock(mutex_);
        // A sender that wrote its frame just before the runner died has not yet marked it sent: wait
        // for it (the runner is reaped, so its write ends at once), or a crash the call caused would
        // be counted as a death between calls, without the skill and without the restart backoff.
        // Bounded: a descendant holding the socket open must not hold the reader here.
        state_changed_.wait_for(lock, send_settle_limit, [&] {
            return std::none_of(pending_.begin(), pending_.end(), [](const auto& p) { return p.second->sending; });
        });
        orphans.swap(pending_);
        // A call still being sent is not counted as running: its sender learns whether it got through.
        for (auto& [id, pending] : orphans)
            if (!pending->sending) exit.skills.push_back(pending->skill_id);
        exit.killed_by_host = !kill_reason_.empty();
        exit.kill_reason = kill_reason_;
        exit.limit = kill_limit_;
        exit.expected = !exit.killed_by_host && !broken_ && (closing_ || retiring_) && exit.exit_status == 0;
        if (state_ == State::starting) {
            load_error_ = Error{errors::kRunnerStartFailed, "the runner for plugin '" + launch_.plugin_name + "' " +
                                                                exit.description +
                                                                " before the plugin was ready; its library or init() "
                                                                "crashes on load (see the log above)"};
            load_error_.details["plugin"] = launch_.plugin_name;
            load_error_.details["exit"] = exit.description;
        }
        state_ = State::ended;
        state_changed_.notify_all();
    }
    background_wake_.notify_all();
    if (!exit.expected) {
        logger_->warn("[plugin {}] runner {} {}{}", launch_.plugin_name, pid_, exit.description,
                      exit.killed_by_host ? " (killed by the host: " + exit.kill_reason + ")" : std::string());
    }
    // Recorded before the calls learn of it, so a caller retrying at once sees the backoff and
    // any quarantine this crash caused.
    if (launch_.on_exit) launch_.on_exit(exit);
    const std::string& plugin = launch_.plugin_name;
    for (auto& [id, pending] : orphans) {
        boost::json::object details{{"plugin", plugin}, {"skill", pending->skill_id}, {"exit", exit.description}};
        if (!pending->entry.empty()) details["entry"] = pending->entry;
        const std::string running = pending->entry.empty()
                                        ? "skill '" + pending->skill_id + "'"
                                        : pending->entry + " (for skill '" + pending->skill_id + "')";
        if (exit.signal != 0) {
            details["signal"] = exit.signal;
            details["signal_name"] = signal_name(exit.signal);
        } else if (exit.exit_status >= 0) {
            details["exit_status"] = exit.exit_status;
        }
        RawOutcome outcome;
        if (exit.killed_by_host) {
            details["reason"] = exit.kill_reason;
            if (!exit.limit.empty()) details["limit"] = exit.limit;
            const char* advice = exit.limit.empty() ? "; the skill must poll is_cancelled()"
                                                    : "; the skill must stay within the limit or the host's "
                                                      "configuration raise it";
            outcome = host_error(errors::kPluginKilled,
                                 "the runner of plugin '" + plugin + "' was killed while running " + running +
                                     " because " + exit.kill_reason + advice + "; the runner restarts on the next call",
                                 details);
        } else {
            outcome = host_error(errors::kPluginCrashed,
                                 "plugin '" + plugin + "' crashed (" + exit.description + ") while running " + running +
                                     "; the host kept running and restarts the plugin on the next call; report "
                                     "this to the plugin author",
                                 details);
        }
        std::lock_guard lock(mutex_);
        pending->outcome = std::move(outcome);
        pending->done = true;
        if (pending->answering) pending->answering->control.cancelled.store(true);
        pending->wake.notify_one();
    }
}

}  // namespace skillhost::plugin
