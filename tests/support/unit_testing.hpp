// Shared pieces for the auth, audit, decisions and policy tests: a temporary directory per test and
// skill specs built the way a manifest would describe them.
#pragma once

#include "manifest/skill_spec.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace skillhost::unit_testing {

class TempDir {
public:
    TempDir() {
        std::random_device device;
        path_ = std::filesystem::temp_directory_path() /
                ("skillhost-policy-test-" + std::to_string(device()) + "-" + std::to_string(device()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path write(const std::string& name, const std::string& text) const {
        const auto file = path_ / name;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << text;
        return file;
    }

private:
    std::filesystem::path path_;
};

struct SkillShape {
    manifest::Risk risk = manifest::Risk::low;
    bool read_only = false;
    manifest::TrustLevel min_trust = manifest::TrustLevel::observe;
    bool requires_approval = false;
};

inline manifest::SkillSpec make_skill(std::string id, SkillShape shape = {}) {
    manifest::SkillSpec spec;
    spec.id = std::move(id);
    spec.title = spec.id;
    spec.risk = shape.risk;
    spec.annotations.read_only = shape.read_only;
    spec.min_trust = shape.min_trust;
    spec.requires_approval = shape.requires_approval;
    return spec;
}

// fs_write as the built-in plugin describes it: medium risk, writes, `path` is a filesystem path.
inline manifest::SkillSpec fs_write_skill() {
    auto spec = make_skill("fs_write", {manifest::Risk::medium, false, manifest::TrustLevel::suggest, false});
    spec.title = "Write a file";
    spec.path_inputs = {"path"};
    spec.inputs.type = manifest::SchemaType::object;
    spec.inputs.required = {"path", "content"};
    return spec;
}

inline manifest::SkillSpec fs_read_skill() {
    auto spec = make_skill("fs_read", {manifest::Risk::low, true, manifest::TrustLevel::observe, false});
    spec.title = "Read a file";
    spec.path_inputs = {"path"};
    return spec;
}

}  // namespace skillhost::unit_testing
