// Checks a plugin's descriptor (skillhost_plugin) against the ABI this host implements and against
// the plugin's manifest, before the host calls anything in the plugin but its entry function.
#pragma once

#include "base/error.hpp"
#include "manifest/manifest.hpp"

#include <skillhost/skill_abi.h>

#include <string>
#include <string_view>

namespace skillhost::plugin {

// The ABI version this host implements.
inline constexpr skillhost_version host_abi_version = SKILLHOST_ABI_VERSION_INIT;

// "1.0.0"
std::string to_string(const skillhost_version& version);

// True for the versions this host runs: its own major, any minor up to its own.
bool host_accepts(const skillhost_version& plugin_version);

// Step one, reading only abi_version: ABI_INCOMPATIBLE naming both versions and what to rebuild.
Status check_abi_version(const skillhost_version& plugin_version, std::string_view plugin_name);

// Step two, once the version is accepted: struct_size covers the 1.0 layout (STRUCT_TOO_SMALL),
// the manifest's abi_version agrees (ABI_MISMATCH), the name matches (NAME_MISMATCH), the skill
// table is well formed (INVALID_DESCRIPTOR, DUPLICATE_SKILL_ID, INVOKE_MISSING), lists exactly
// the manifest's skills (SKILLS_MISMATCH with details.missing and details.extra), and reports the
// manifest's version (VERSION_MISMATCH naming both and the fix).
Status check_descriptor(const skillhost_plugin& plugin, const manifest::Manifest& manifest);

}  // namespace skillhost::plugin
