// The host's end of one plugin runner process: spawns it, waits until the plugin is loaded, sends
// calls and matches their results, answers the plugin's requests for host services (LLM
// completions, path checks, ...), forwards progress and log lines, and notices when the process
// ends. No thread or process per call: a calling thread reads the socket itself while it waits
// (one thread at a time holds that role and hands results to the others), and a background thread
// reads only while no call is in flight, to notice log lines, idleness and crashes.
#pragma once

#include "base/error.hpp"
#include "plugin/completion_service.hpp"
#include "plugin/host_services.hpp"
#include "plugin/loaded_plugin.hpp"
#include "plugin/runner_protocol.hpp"
#include "plugin/storage_service.hpp"

#include <spdlog/spdlog.h>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace skillhost::plugin {

// How a runner process ended, in words a user can act on.
struct RunnerExit {
    int exit_status = -1;  // when it exited
    int signal = 0;        // when a signal ended it
    bool killed_by_host = false;
    std::string kill_reason;          // why the host killed it
    std::string limit;                // the configured limit it broke ("max_tasks"), if that was why
    std::string description;          // "killed by signal 11 (SIGSEGV)", "exited with status 3"
    std::vector<std::string> skills;  // skills that were running when it ended
    bool expected = false;            // an idle exit or a host shutdown: not a crash
};

struct RunnerLaunch {
    std::filesystem::path runner;
    std::vector<std::string> args;
    std::string plugin_name;
    std::size_t max_result_bytes = 0;
    std::shared_ptr<CompletionService> completions;
    std::shared_ptr<StorageService> storage;  // answers "skillhost.storage/1"; null: STORAGE_UNAVAILABLE
    // False when the manifest declares permissions without `llm: true`: completions are refused.
    bool llm_allowed = true;
    std::chrono::milliseconds kill_grace{2000};
    // The runner's cgroup v2 leaf (removed once the runner has exited); empty: none.
    std::filesystem::path cgroup_leaf;
    std::filesystem::path cgroup_pids_leaf;  // cgroup v1: the pids controller's leaf (empty: none)
    // The leaf's pids.events, where the kernel counts threads refused at pids.max: a runner that
    // hit the limit is killed like one counted over it (empty: the host counts threads itself).
    std::filesystem::path pids_events;
    std::string user_id;  // whose runner it is (its output is logged as theirs)
    // Threads the runner may have (isolation.max_tasks), checked by the host every
    // task_check_period (pids.events where a cgroup's pids.max holds it); 0: no limit.
    std::uint64_t max_tasks = 0;
    // The runner's data directory and its budget (isolation.disk_budget_mb), measured by the host
    // on the same schedule (at most every disk_check_period); over it, the runner is killed.
    std::filesystem::path data_dir;
    std::uint64_t disk_budget_bytes = 0;
    // Called once from the reader thread when the process has ended and its calls were failed.
    std::function<void(const RunnerExit&)> on_exit;
};

// The socket, shared with threads answering LLM completions so it outlives none of its users.
struct RunnerChannel {
    explicit RunnerChannel(int fd_) : fd(fd_) {}
    ~RunnerChannel();
    RunnerChannel(const RunnerChannel&) = delete;
    RunnerChannel& operator=(const RunnerChannel&) = delete;
    bool send(wire::FrameType type, std::uint64_t id, std::string_view payload);
    const int fd;
    std::mutex write_mutex;
};

class RunnerConnection {
public:
    // Spawns the runner and waits until it reports the plugin loaded. Errors: RUNNER_START_FAILED
    // (spawn failed, or the runner died before it was ready), or the load error the runner reports
    // (LIBRARY_LOAD_FAILED, SKILLS_MISMATCH, SANDBOX_UNAVAILABLE, ...).
    static Result<std::shared_ptr<RunnerConnection>> start(RunnerLaunch launch);

    // Closes the connection; a runner still alive after a short grace is killed. Joins the reader.
    ~RunnerConnection();
    RunnerConnection(const RunnerConnection&) = delete;
    RunnerConnection& operator=(const RunnerConnection&) = delete;

    // Runs one call in the runner. nullopt: the runner no longer takes calls (it is retiring or
    // gone); start another. A runner dying meanwhile ends the call with PLUGIN_CRASHED, and one the
    // host kills (the call ignored cancellation past the grace) with PLUGIN_KILLED.
    // A runner found dead before the call reached it (the send failed: nothing of the call ran)
    // also answers nullopt, so the call runs in a fresh runner; one that dies after the call was
    // sent answers PLUGIN_CRASHED (the call may have started, so it is never run twice).
    std::optional<RawOutcome> call(const Call& context, std::string_view args_json);
    // Runs one request of a plugin extension (resources, prompts) like a call, with the same
    // supervision; `entry` names it in errors ("resources read()"). request.call is filled here.
    std::optional<RawOutcome> call_extension(const Call& context, wire::ExtensionCall request, std::string entry);

    bool accepting() const;
    // The runner said it was idle and is leaving (or has left) in good order: a call it refused
    // (nullopt) may simply go to a fresh runner, which is not a failure.
    bool retired_idle() const;
    // Tells the runner to finish (it reads end-of-file) without waiting for it; the destructor
    // then waits. Lets a plugin close all its runners at once instead of one after another.
    void begin_close();
    pid_t pid() const { return pid_; }
    // The process the plugin runs in: the sandboxed one in its own namespaces (its pid as the
    // host sees it, told by the keeper, checked to be the child of the keeper's child: the
    // namespace's init), else pid().
    pid_t process_pid() const;
    const wire::ReadyInfo& ready_info() const { return ready_; }
    std::chrono::steady_clock::time_point started_at() const { return started_at_; }

    // SIGKILL now; every call in flight ends with PLUGIN_KILLED and `reason` (and details.limit
    // naming the configured limit it broke, when `limit` is given).
    void kill(const std::string& reason, std::string_view limit = {});

private:
    // The host's copy of a call in flight, for the extensions the host answers the runner: what an
    // answer on the request pool may still use after the call ended (it is then marked cancelled).
    struct AnsweringCall {
        Call call;
        CallControl control;
    };
    // One call in flight. Only the thread holding the reader role sets `done`, so a call's
    // control stays alive while that thread reports its progress or checks its paths.
    struct Pending {
        std::condition_variable wake;
        bool done = false;
        bool wants_reader = false;  // its caller waits for the reader role
        RawOutcome outcome;
        CallControl* control = nullptr;
        std::shared_ptr<AnsweringCall> answering;  // made on the call's first host request
        std::string skill_id;
        std::string user_id;          // whose call it is: host services it asks for act for this user
        std::string entry;            // "resources read()" for an extension request; empty for a skill
        std::size_t max_payload = 0;  // the largest result frame this call may get
        bool sending = false;         // its frame is being written: not known to have reached the runner
    };
    // An admitted host request: its call (null: asked outside any), and its place among the runner's outstanding requests
    // (hold it until the request is answered).
    struct Admitted {
        std::shared_ptr<AnsweringCall> call;
        std::shared_ptr<void> slot;
    };
    enum class State { starting, ready, load_failed, ended };
    enum class ReadStop { done, timeout, kicked, ended };

    RunnerConnection(RunnerLaunch launch, pid_t pid, int fd);
    // Sends one CALL or EXTENSION_CALL frame and waits for its result (call() and call_extension()).
    std::optional<RawOutcome> exchange(const Call& context, wire::FrameType type, std::string_view payload,
                                       std::string entry, std::size_t max_answer_bytes);
    void background_loop();
    // Reads and handles frames; the calling thread holds the reader role. Stops when `mine` is
    // done, at `until`, when kicked (watch_kick: the background thread gives way to a caller), or
    // when the stream ended.
    ReadStop read_frames(const Pending* mine, std::chrono::steady_clock::time_point until, bool watch_kick);
    // Reads one frame (the socket is readable or a frame is buffered) and handles it; false when
    // the stream ended.
    bool handle_next(wire::Frame& frame);
    void end_of_stream(wire::ReadStatus status, std::size_t frame_size);
    void pass_reader_role();  // mutex_ held
    void handle(wire::Frame& frame);
    // A request for a host extension (runner_call_services.cpp): answered by the extension's
    // module (plugin/extensions/) for the host's record of the call, on the request pool when the
    // module says it blocks.
    void answer_host_request(std::uint64_t request_id, std::string_view payload);
    void reply(std::uint64_t request_id, const RawOutcome& answer);
    // A host request must name a call in flight (its user and run are the host's record of that
    // call, never ids the runner sends), or no call (sequence 0: answered as outside any call), and
    // stay within max_host_requests outstanding; otherwise it is refused (and a runner over the
    // bound is killed).
    std::optional<Admitted> admit_host_request(std::uint64_t request_id, std::uint64_t call_sequence);
    // Answers an admitted request on the host-request pool (plugin/host_request_pool.hpp), or
    // tells the runner the host is busy when the pool's queue is full.
    void answer_later(std::uint64_t request_id, std::function<void()> answer);
    // content and call_log frames (runner_call_services.cpp).
    void forward_call_service(const wire::Frame& frame);
    // The call's control while it is running; false when it has ended. Only on the thread handling
    // frames (the call cannot end meanwhile: its result is a later frame).
    bool with_running_call(std::uint64_t sequence, const std::function<void(CallControl&)>& use);
    void finish(RunnerExit exit);
    // Kills the runner when it has more threads than launch_.max_tasks; true when it did.
    bool check_tasks();
    // Kills the runner when its data directory holds more than its budget; true when it did.
    bool check_disk();
    bool grandchild(pid_t pid) const;  // a child of the keeper's child (the sandbox's init)
    bool watches_limits() const { return launch_.max_tasks > 0 || launch_.disk_budget_bytes > 0; }
    std::atomic<std::chrono::steady_clock::time_point> last_disk_check_{};
    std::chrono::steady_clock::duration last_disk_walk_{};  // background thread only
    std::atomic<std::int64_t> last_exchange_micros_{0};     // how long the last call took
    RunnerExit reap();
    void shut_down_if_drained();  // mutex_ held

    RunnerLaunch launch_;
    // What the extension modules answer this runner's plugin with (its name, model, storage).
    std::shared_ptr<const PluginHostContext> answering_;
    // The logger this connection's threads write to, held here rather than looked up: a call that
    // outlives main() (a runner still starting when the process exits) may log after the logger
    // registry is gone, never after this logger.
    const std::shared_ptr<spdlog::logger> logger_ = spdlog::default_logger();
    const pid_t pid_;
    std::shared_ptr<RunnerChannel> channel_;
    const std::chrono::steady_clock::time_point started_at_;

    mutable std::mutex mutex_;
    std::condition_variable state_changed_;
    State state_ = State::starting;
    bool was_ready_ = false;  // it reached ready, whatever state_ is now
    Error load_error_;
    wire::ReadyInfo ready_;
    bool retiring_ = false;
    bool closing_ = false;  // the host is closing it: its end is expected
    bool broken_ = false;   // a send to it failed: it is gone, whatever the reader has seen yet
    pid_t sandboxed_pid_ = 0;
    std::shared_ptr<std::atomic<int>> host_requests_ =
        std::make_shared<std::atomic<int>>(0);  // outstanding  // from the keeper's `sandboxed` frame
    bool saw_frame_ = false;  // a frame other than `sandboxed` arrived: no `sandboxed` is believed after it
    std::string kill_reason_;
    std::string kill_limit_;
    std::uint64_t next_call_ = 1;
    std::map<std::uint64_t, std::shared_ptr<Pending>> pending_;
    std::atomic<bool> reaped_{false};

    bool reader_busy_ = false;                               // some thread reads the socket
    bool background_reading_ = false;                        // ... and it is the background thread
    std::chrono::steady_clock::time_point last_call_end_{};  // when pending_ last became empty
    std::condition_variable background_wake_;
    int kick_fd_ = -1;          // eventfd: a caller asks the background thread to stop reading
    wire::FrameReader frames_;  // used by whichever thread holds the reader role

    std::thread background_;
};

// The parent of `pid` as /proc says, -1 when it is gone.
pid_t parent_of(pid_t pid);

// "SIGSEGV" for 11; "signal N" for one without a name.
std::string signal_name(int signal);
// How a process ended, from its wait status: "exited with status 3", "killed by signal 9 (SIGKILL)".
std::string describe_status(int status);

}  // namespace skillhost::plugin
