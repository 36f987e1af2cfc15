// A LoadedPlugin that carries a manifest built in code and no library: for catalog and rendering
// tests, which only read manifests. Calling it is a test bug and fails loudly.
#pragma once

#include "plugin/loaded_plugin.hpp"

#include <memory>
#include <stdexcept>

namespace skillhost::testing {

class ManifestOnlyPlugin final : public plugin::LoadedPlugin {
public:
    explicit ManifestOnlyPlugin(manifest::Manifest m) : manifest_(std::move(m)) {}
    const manifest::Manifest& manifest() const override { return manifest_; }
    std::string_view version() const override { return manifest_.version; }
    manifest::AbiVersion abi_version() const override { return manifest_.abi; }
    const std::filesystem::path& loaded_from() const override { return manifest_.file; }
    plugin::RawOutcome invoke(const plugin::CallContext&, std::string_view) const override {
        throw std::logic_error("ManifestOnlyPlugin has no library to invoke");
    }

private:
    manifest::Manifest manifest_;
};

inline std::shared_ptr<plugin::LoadedPlugin> manifest_only_plugin(std::string name,
                                                                  std::vector<manifest::SkillSpec> skills) {
    manifest::Manifest m;
    m.name = std::move(name);
    m.version = "1.2.3";
    m.library = "lib" + m.name + ".so";
    m.abi = {1, 0};
    m.file = "/plugins/" + m.name + ".yaml";
    m.skills = std::move(skills);
    return std::make_shared<ManifestOnlyPlugin>(std::move(m));
}

}  // namespace skillhost::testing
