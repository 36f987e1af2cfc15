#include "plugins/builtin_host.hpp"

#include "app/plugin_storage_service.hpp"
#include "plugin/plugin_loader.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace skillhost::testing {

namespace fs = std::filesystem;

BuiltinHost::BuiltinHost() : home_("skillhost-builtin") {
    workspace_root = home_ / "workspace";
    fs::create_directories(workspace_root);
    plugin::LoaderOptions options{home_ / "plugin-cache", {}};
    // The host's storage ("skillhost.storage/1") on the home's SQLite file, as `skillhost serve` has it.
    auto storage = app::PluginStorageService::open(db::StorageLocation::sqlite(home_ / "skillhost.db"));
    if (storage)
        options.storage = storage.value();
    else
        ADD_FAILURE() << "plugin storage did not open: " << storage.error().message;
    // The same tests run a second time with the plugins in runner processes (tests/plugins/CMakeLists.txt).
    if (const char* mode = std::getenv("SKILLHOST_TEST_PLUGIN_ISOLATION"); mode && std::string_view(mode) == "process")
        options.isolation.default_mode = plugin::IsolationMode::process;
    plugin::PluginLoader loader(options);
    std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins;
    for (const char* name : {"tasks", "fs", "memory"}) {
        auto loaded = loader.load_file(fs::path(SKILLHOST_BUILTIN_PLUGIN_DIR) / (std::string(name) + ".yaml"));
        if (!loaded) {
            ADD_FAILURE() << "built-in plugin " << name << " did not load: " << loaded.error().code << ": "
                          << loaded.error().message;
            continue;
        }
        if (loaded.value()->isolated() != (options.isolation.default_mode == plugin::IsolationMode::process))
            ADD_FAILURE() << "built-in plugin " << name << " did not load in the requested isolation mode";
        plugins.push_back(loaded.value());
    }
    catalog_ = std::make_shared<catalog::CatalogSnapshot>(1, std::move(plugins), std::vector<plugin::PluginFailure>{});
}

exec::SkillResult BuiltinHost::call(const std::string& skill, const std::string& args_json, const std::string& user) {
    plugin::Call caller;
    caller.user_id = user;
    caller.workspace_root = workspace_root;
    exec::CallOptions options;
    options.users_dir = users_dir();
    options.timeout = timeout;
    return executor_.call(*catalog_, skill, boost::json::parse(args_json), caller, options);
}

exec::SkillResult BuiltinHost::call_with_key(const std::string& skill, const std::string& args_json,
                                             const std::string& key, const std::string& user) {
    plugin::Call caller;
    caller.user_id = user;
    caller.workspace_root = workspace_root;
    caller.idempotency_key = key;
    exec::CallOptions options;
    options.users_dir = users_dir();
    options.timeout = timeout;
    return executor_.call(*catalog_, skill, boost::json::parse(args_json), caller, options);
}

std::string output_text(const exec::SkillResult& result) {
    return boost::json::serialize(result.ok ? result.output : boost::json::value(result.error.to_json()));
}

const boost::json::value& field(const exec::SkillResult& result, const char* name) {
    static const boost::json::value null_value;
    if (!result.ok || !result.output.is_object()) return null_value;
    const auto* v = result.output.as_object().if_contains(name);
    return v ? *v : null_value;
}

}  // namespace skillhost::testing
