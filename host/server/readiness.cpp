#include "server/readiness.hpp"

#include "app/decision_upkeep.hpp"
#include "app/storage_schema.hpp"
#include "db/postgres_connection.hpp"
#include "db/sqlite_connection.hpp"
#include "net/http_client.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace skillhost::server {

namespace json = boost::json;

namespace {

// Writes, syncs and removes a small file in `dir`: what a full disk, a read-only file system or a
// directory the daemon may not write refuses. Empty when it worked, else the system's reason.
std::string write_probe(const std::filesystem::path& dir) {
    const std::filesystem::path file = dir / (".readyz-probe-" + std::to_string(::getpid()));
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return std::strerror(errno);
    static const std::string block(4096, '\0');  // a whole block: a full disk cannot hide it in a tail
    int failed = 0;
    std::size_t done = 0;
    while (done < block.size() && failed == 0) {
        const ssize_t n = ::write(fd, block.data() + done, block.size() - done);
        if (n < 0 && errno != EINTR) failed = errno;
        if (n > 0) done += static_cast<std::size_t>(n);
    }
    if (failed == 0 && ::fdatasync(fd) != 0) failed = errno;
    ::close(fd);
    ::unlink(file.c_str());
    return failed == 0 ? std::string() : std::string(std::strerror(failed));
}

// {ok, error?} of a directory the daemon must be able to write.
json::object writable_check(const std::filesystem::path& dir, std::string_view name) {
    const std::string problem = write_probe(dir);
    if (problem.empty()) return json::object{{"ok", true}};
    spdlog::warn("readyz: {} ({}) is not writable: {}", name, dir.string(), problem);
    return json::object{{"ok", false}, {"error", std::string(name) + " is not writable: " + problem}};
}

}  // namespace

ReadinessCheck::ReadinessCheck(app::HostRuntime& host, ReadinessOptions options) : host_(host), options_(options) {}

ReadinessCheck::Probe ReadinessCheck::probe_model(const std::string& backend, const std::string& base_url) const {
    Probe probe;
    if (backend != "ollama" && backend != "openai") {
        probe.ok = true;  // builtin and scripted run in-process
        return probe;
    }
    http::HttpRequest request;
    request.method = "GET";
    std::string base = base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    request.url = base + (backend == "ollama" ? "/api/tags" : "/models");
    http::HttpClientOptions o;
    o.connect_timeout = options_.probe_timeout;
    o.read_timeout = options_.probe_timeout;
    o.max_retries = 0;
    auto response = http::send_http_request(request, o);
    if (response) {
        probe.ok = true;  // any HTTP answer: the server is there
    } else {
        spdlog::warn("readyz: model server {} is not reachable: {}: {}", base, response.error().code,
                     response.error().message);
        probe.error = response.error().code + ": the model server did not answer (details in the server log)";
    }
    return probe;
}

std::size_t ReadinessCheck::checks_run() const {
    std::lock_guard lock(mutex_);
    return checks_run_;
}

json::object ReadinessCheck::check() {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (!last_ || now - last_at_ >= options_.cache_for) {
        last_ = run_checks();
        last_at_ = std::chrono::steady_clock::now();
        ++checks_run_;
    }
    return *last_;
}

json::object ReadinessCheck::run_checks() const {
    bool ready = true;
    json::object checks;

    const auto snapshot = host_.snapshot();
    const bool plugins_ok = !snapshot->plugins().empty();
    json::object plugins{{"ok", plugins_ok},
                         {"loaded", snapshot->plugins().size()},
                         {"failed", snapshot->failures().size()},
                         {"catalog_version", snapshot->version()}};
    if (!plugins_ok) plugins["error"] = "no plugin is loaded; check the plugin directories (skillhost skills list)";
    checks["plugins"] = std::move(plugins);
    ready = ready && plugins_ok;

    // What isolation enforces, per plugin: a user sees which plugins run confined and how.
    json::array isolated;
    for (const auto& loaded : snapshot->plugins()) {
        json::object entry{{"plugin", loaded->manifest().name},
                           {"mode", loaded->isolated() ? "process" : "in_process"}};
        if (loaded->isolated()) entry["sandbox"] = loaded->sandbox();
        isolated.push_back(std::move(entry));
    }
    checks["isolation"] = json::object{{"ok", true},
                                       {"sandbox", host_.config().isolation.sandbox},
                                       {"default_mode", host_.config().isolation.default_mode},
                                       {"plugins", std::move(isolated)}};

    json::object database;
    const db::StorageLocation location = app::storage_location(host_.config());
    Status reachable;
    if (location.backend == db::StorageBackend::postgres) {
        // The server every instance shares answers a trivial query within the probe's time, on a
        // connection of its own (a broken pooled one must not make the probe wait or pass).
        database["backend"] = "postgres";
        auto connection = db::PgConnection::open(location.postgres_url, std::chrono::seconds(2));
        reachable = connection
                        ? connection->exec("SET statement_timeout = " + std::to_string(options_.probe_timeout.count()) +
                                           "; SELECT 1")
                        : Status(connection.error());
    } else {
        database["backend"] = "sqlite";
        auto connection = db::SqliteConnection::open(host_.config().database_file(), std::chrono::milliseconds(1000));
        reachable = connection ? connection->exec("BEGIN IMMEDIATE; ROLLBACK;") : Status(connection.error());
    }
    database["ok"] = static_cast<bool>(reachable);
    if (!reachable) {
        spdlog::warn("readyz: the database is not usable: {}: {}", reachable.error().code, reachable.error().message);
        database["error"] =
            reachable.error().code + (location.backend == db::StorageBackend::postgres
                                          ? ": the PostgreSQL server did not answer (details in the server log)"
                                          : ": the database is not writable (details in the server log)");
    }
    checks["database"] = std::move(database);
    ready = ready && reachable;

    // What every call writes: the home (the database, plugin data, private library copies) and the
    // audit day files. A full disk, a read-only remount or lost permissions make the host unready.
    json::object home = writable_check(host_.config().home, "the home directory");
    ready = ready && home.at("ok").as_bool();
    checks["home"] = std::move(home);
    if (const std::filesystem::path directory = host_.audit_directory(); !directory.empty()) {
        json::object audit = writable_check(directory, "the audit log directory");
        ready = ready && audit.at("ok").as_bool();
        checks["audit"] = std::move(audit);
    }
    // PostgreSQL: audit records waiting for the database in the home's outbox. Executions are refused
    // once it could not keep another after-call record.
    if (location.backend == db::StorageBackend::postgres) {
        std::error_code ec;
        const auto file = app::audit_outbox_file(host_.config());
        const std::uintmax_t bytes = std::filesystem::exists(file, ec) ? std::filesystem::file_size(file, ec) : 0;
        const bool room = ec || app::audit_outbox_has_room(bytes);
        json::object outbox{{"ok", room}, {"waiting_bytes", ec ? 0 : bytes}};
        if (!room)
            outbox["error"] = "the audit outbox " + file.string() +
                              " is full of records the database has not taken yet; calls are refused until it does";
        ready = ready && room;
        checks["audit_outbox"] = std::move(outbox);
    }
    // Outcomes of approved calls and answered questions that could not be stored are stored now
    // if storage takes writes again.
    {
        const std::size_t waiting = app::record_unrecorded_decision_outcomes(host_);
        json::object approvals{{"ok", waiting == 0}, {"unrecorded_outcomes", waiting}};
        if (waiting)
            approvals["error"] =
                "outcomes of approved calls or answered questions wait for the database to take "
                "writes again";
        ready = ready && waiting == 0;
        checks["approvals"] = std::move(approvals);
    }

    bool models_ok = true;
    json::array roles;
    for (const auto& r : host_.models()) {
        const Probe probe = probe_model(r.spec.backend, r.spec.base_url);
        json::object role{
            {"role", r.role}, {"model_name", r.model_name}, {"backend", r.spec.backend}, {"reachable", probe.ok}};
        if (!probe.ok) role["error"] = probe.error;
        models_ok = models_ok && probe.ok;
        roles.push_back(std::move(role));
    }
    checks["models"] = json::object{{"ok", models_ok}, {"roles", std::move(roles)}};
    ready = ready && models_ok;
    return json::object{{"ready", ready}, {"checks", std::move(checks)}};
}

}  // namespace skillhost::server
