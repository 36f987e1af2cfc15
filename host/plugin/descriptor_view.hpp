// Reads a plugin descriptor the way its producer laid it out: members appended after 1.0 only when
// struct_size covers them, and skills with the stride the plugin was compiled with.
#pragma once

#include <skillhost/skill_abi.h>

#include <cstddef>
#include <cstdint>

namespace skillhost::plugin {

// The size of skillhost_skill in ABI 1.0, the stride of every 1.0 plugin's skill table.
inline constexpr std::size_t skill_layout_1_0 = offsetof(skillhost_skill, invoke) + sizeof(skillhost_skill::invoke);

// A descriptor whose skill stride is larger than this is garbage, not a real table.
inline constexpr std::size_t max_skill_stride = 4096;

// True when the descriptor's producer compiled a skillhost_plugin that has this member: the
// SKILLHOST_HAS_MEMBER test for a descriptor the host holds by reference.
#define SKILLHOST_DESCRIPTOR_HAS(plugin, member) \
    ((plugin).struct_size >= offsetof(skillhost_plugin, member) + sizeof(skillhost_plugin::member))

// The stride of plugin.skills: skill_struct_size for 1.1 plugins that set it, else the 1.0 layout.
inline std::size_t skill_stride(const skillhost_plugin& plugin) noexcept {
    if (SKILLHOST_DESCRIPTOR_HAS(plugin, skill_struct_size) && plugin.skill_struct_size != 0)
        return plugin.skill_struct_size;
    return skill_layout_1_0;
}

// The index-th skill. Only members up to the stride exist; id and invoke always do (the check
// refuses strides below the 1.0 layout).
inline const skillhost_skill& skill_at(const skillhost_plugin& plugin, std::uint32_t index) noexcept {
    const auto* base = reinterpret_cast<const unsigned char*>(plugin.skills);
    return *reinterpret_cast<const skillhost_skill*>(base + static_cast<std::size_t>(index) * skill_stride(plugin));
}

// The plugin's get_extension, or null for 1.0 plugins and plugins without extensions.
inline auto plugin_get_extension(const skillhost_plugin& plugin) noexcept -> decltype(plugin.get_extension) {
    return SKILLHOST_DESCRIPTOR_HAS(plugin, get_extension) ? plugin.get_extension : nullptr;
}

}  // namespace skillhost::plugin
