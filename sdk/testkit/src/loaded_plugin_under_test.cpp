// The test kit is a thin adapter: every decision (manifest validation, loading, argument checks,
// timeouts, error hints) is made by the host's own subsystems, so a plugin that passes its tests
// here behaves the same inside skillhost.
#include <skillhost/testkit.hpp>

#include "catalog/catalog_snapshot.hpp"
#include "exec/executor.hpp"
#include "plugin/plugin_loader.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>

namespace skillhost::testkit {

namespace fs = std::filesystem;

namespace {

// A fresh private directory under the system temp dir (mkdtemp: unique even across processes).
fs::path make_temporary_home() {
    std::string pattern = (fs::temp_directory_path() / "skillhost-testkit-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
        throw LoadError("TESTKIT_HOME_FAILED",
                        "could not create a temporary host home in " + fs::temp_directory_path().string() + ": " +
                            std::error_code(errno, std::generic_category()).message() +
                            "; check that TMPDIR is writable",
                        "{}", {});
    return fs::path(pattern);
}

LoadError to_load_error(const Error& error) {
    return LoadError(error.code, error.message, boost::json::serialize(error.details), error.suggestions);
}

}  // namespace

LoadError::LoadError(std::string code, std::string message, std::string details_json,
                     std::vector<std::string> suggestions)
    : std::runtime_error(code + ": " + message),
      code_(std::move(code)),
      message_(std::move(message)),
      details_json_(std::move(details_json)),
      suggestions_(std::move(suggestions)) {}

struct LoadedPluginUnderTest::State {
    fs::path home;
    bool owns_home = false;
    std::shared_ptr<plugin::LoadedPlugin> plugin;
    std::shared_ptr<const catalog::CatalogSnapshot> catalog;
    std::unique_ptr<exec::Executor> executor;
    std::string version;

    ~State() {
        // Order matters: the executor and catalog drop their references, then the plugin is shut
        // down and unloaded (removing its private copy), and only then the home goes.
        executor.reset();
        catalog.reset();
        plugin.reset();
        if (owns_home) {
            std::error_code ignored;
            fs::remove_all(home, ignored);
        }
    }
};

LoadedPluginUnderTest LoadedPluginUnderTest::load(const fs::path& manifest_file, const LoadSettings& settings) {
    auto state = std::make_unique<State>();
    if (settings.home.empty()) {
        state->home = make_temporary_home();
        state->owns_home = true;
    } else {
        state->home = settings.home;
        std::error_code ec;
        fs::create_directories(state->home, ec);
        if (ec)
            throw LoadError("TESTKIT_HOME_FAILED",
                            "could not create the host home " + state->home.string() + ": " + ec.message() +
                                "; pass a writable directory in LoadSettings::home",
                            "{}", {});
    }

    plugin::LoaderOptions options;
    options.cache_dir = state->home / "plugin-cache";
    plugin::PluginLoader loader(std::move(options));
    auto loaded = loader.load_file(manifest_file);
    if (!loaded) throw to_load_error(loaded.error());

    state->plugin = std::move(loaded.value());
    state->version = std::string(state->plugin->version());
    state->catalog = std::make_shared<const catalog::CatalogSnapshot>(
        1, std::vector<std::shared_ptr<plugin::LoadedPlugin>>{state->plugin}, std::vector<plugin::PluginFailure>{});
    // Whatever the catalog refuses for this plugin, the host would refuse too: report it as a load
    // failure rather than as unknown skills later.
    if (!state->catalog->failures().empty()) throw to_load_error(state->catalog->failures().front().error);
    state->executor = std::make_unique<exec::Executor>();
    return LoadedPluginUnderTest(std::move(state));
}

LoadedPluginUnderTest::LoadedPluginUnderTest(std::unique_ptr<State> state) : state_(std::move(state)) {}
LoadedPluginUnderTest::LoadedPluginUnderTest(LoadedPluginUnderTest&&) noexcept = default;
LoadedPluginUnderTest& LoadedPluginUnderTest::operator=(LoadedPluginUnderTest&&) noexcept = default;
LoadedPluginUnderTest::~LoadedPluginUnderTest() = default;

SkillCallResult LoadedPluginUnderTest::call(std::string_view skill_id, std::string_view args_json,
                                            const CallSettings& settings) const {
    if (!state_) throw std::logic_error("LoadedPluginUnderTest::call on a moved-from object");
    boost::system::error_code parse_error;
    boost::json::value args = boost::json::parse(args_json, parse_error);
    if (parse_error)
        throw std::invalid_argument("the test's args_json is not valid JSON (" + parse_error.message() +
                                    "): " + std::string(args_json));

    plugin::Call caller;
    caller.user_id = settings.user_id;
    caller.cognitive_mode = settings.cognitive_mode;
    caller.workspace_root = settings.workspace_root;

    exec::CallOptions options;
    options.users_dir = state_->home / "users";
    options.timeout = settings.timeout;
    if (settings.on_progress) options.services = plugin::progress_listener(settings.on_progress);
    options.cancel = settings.cancel;

    exec::SkillResult outcome = state_->executor->call(*state_->catalog, skill_id, args, caller, options);

    SkillCallResult result;
    result.ok = outcome.ok;
    result.call_id = outcome.call_id;
    result.duration = outcome.duration;
    if (outcome.ok) {
        result.result_json = boost::json::serialize(outcome.output);
    } else {
        result.error_code = outcome.error.code;
        result.error_message = outcome.error.message;
        result.error_details_json = boost::json::serialize(outcome.error.details);
        result.suggestions = outcome.error.suggestions;
    }
    return result;
}

const std::string& LoadedPluginUnderTest::name() const {
    return state_->plugin->manifest().name;
}
const std::string& LoadedPluginUnderTest::version() const {
    return state_->version;
}
const fs::path& LoadedPluginUnderTest::home() const {
    return state_->home;
}

std::vector<std::string> LoadedPluginUnderTest::skill_ids() const {
    std::vector<std::string> ids;
    for (const auto& skill : state_->plugin->manifest().skills) ids.push_back(skill.id);
    return ids;
}

fs::path LoadedPluginUnderTest::data_dir(std::string_view user_id) const {
    return state_->home / "users" / std::string(user_id) / "plugins" / name();
}

}  // namespace skillhost::testkit
