// The stateful built-in plugins on the host's storage (skillhost.storage/1, the home's SQLite file):
// what a read costs as a user's data grows. task_list and memory_recent read every record of the
// user's store and filter in the plugin; memory_search also builds an FTS5 index of the memories
// inside the window for each call. Plugins in process, called through the executor as a front end
// calls them. Results and the command: docs/performance.md ("Plugin data").
#include "generated_plugins.hpp"

#include "app/plugin_storage_service.hpp"
#include "exec/executor.hpp"
#include "plugin/plugin_loader.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/parse.hpp>

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

namespace {

namespace json = boost::json;
using namespace skillhost;

struct Host {
    bench::ScratchDir home{"skillhost-bench-plugin-data"};
    std::shared_ptr<catalog::CatalogSnapshot> catalog;
    exec::Executor executor;

    Host() {
        plugin::LoaderOptions options{home.path() / "plugin-cache", {}};
        auto storage = app::PluginStorageService::open(db::StorageLocation::sqlite(home.path() / "skillhost.db"));
        if (!storage) fail("plugin storage did not open: " + storage.error().message);
        options.storage = storage.value();
        plugin::PluginLoader loader(options);
        std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins;
        for (const char* name : {"tasks", "memory"}) {
            auto loaded =
                loader.load_file(std::filesystem::path(SKILLHOST_BUILTIN_PLUGIN_DIR) / (std::string(name) + ".yaml"));
            if (!loaded) fail(std::string(name) + " did not load: " + loaded.error().message);
            plugins.push_back(loaded.value());
        }
        catalog =
            std::make_shared<catalog::CatalogSnapshot>(1, std::move(plugins), std::vector<plugin::PluginFailure>{});
    }
    [[noreturn]] static void fail(const std::string& why) {
        std::cerr << why << "\n";
        std::exit(1);
    }
    exec::SkillResult call(const std::string& user, const std::string& skill, const std::string& args) {
        plugin::Call caller;
        caller.user_id = user;
        exec::CallOptions options;
        options.users_dir = home.path() / "users";
        return executor.call(*catalog, skill, json::parse(args), caller, options);
    }
    // A user holding `count` tasks and `count` memories (one a minute, a few words each), made once.
    std::string user_with(std::int64_t count) {
        const std::string user = "user" + std::to_string(count);
        if (made_[count]++) return user;
        static const char* const kWords[] = {"meeting", "dentist", "roadmap", "budget", "garden",
                                             "invoice", "flight",  "report",  "dinner", "review"};
        for (std::int64_t i = 0; i < count; ++i) {
            const std::string a = kWords[i % 10], b = kWords[(i / 10) % 10];
            auto task =
                call(user, "task_create",
                     R"({"title":"Task )" + std::to_string(i) + " " + a + " " + b + R"(","tags":[")" + b + R"("]})");
            auto memory = call(user, "memory_capture",
                               R"({"text":"Memory )" + std::to_string(i) + " about the " + a + " and the " + b +
                                   R"(","timestamp":")" + timestamp(i) + R"(","tags":[")" + a + R"("]})");
            if (!task.ok || !memory.ok) fail("seeding failed: " + task.error.message + memory.error.message);
        }
        return user;
    }
    static std::string timestamp(std::int64_t minute) {
        // From 2026-01-01T00:00:00Z on, one memory a minute.
        const std::time_t t = 1767225600 + minute * 60;
        char out[32];
        std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
        return out;
    }
    std::map<std::int64_t, int> made_;
};

Host& host() {
    static Host h;
    return h;
}

void run(benchmark::State& state, const std::string& skill, const std::string& args) {
    Host& h = host();
    const std::string user = h.user_with(state.range(0));
    for (auto _ : state) {
        auto result = h.call(user, skill, args);
        if (!result.ok) state.SkipWithError(result.error.message.c_str());
        benchmark::DoNotOptimize(result);
    }
    state.counters["records"] = static_cast<double>(state.range(0));
}

void BM_TaskList(benchmark::State& state) {
    run(state, "task_list", R"({"limit":20})");
}
void BM_MemoryRecent(benchmark::State& state) {
    run(state, "memory_recent", R"({"limit":20})");
}
void BM_MemorySearch(benchmark::State& state) {
    run(state, "memory_search", R"({"query":"dentist roadmap","limit":10})");
}
void BM_MemorySearchInADay(benchmark::State& state) {
    // A window the store cannot narrow: every memory is read, only a day's are indexed.
    run(state, "memory_search", R"({"query":"dentist","since":"2026-01-01T00:00:00Z","until":"2026-01-02T00:00:00Z"})");
}
void BM_MemoryCapture(benchmark::State& state) {
    run(state, "memory_capture", R"({"text":"One more memory about the garden"})");
}

BENCHMARK(BM_TaskList)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemoryRecent)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemorySearch)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemorySearchInADay)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemoryCapture)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
