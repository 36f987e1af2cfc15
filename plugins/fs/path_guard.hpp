// Asks the host, through the "skillhost.path_check/1" extension, whether the call's rules allow
// each path the skill is about to touch beyond its argument, and counts the ones withheld so the
// answer can say that something was left out without naming it.
#pragma once

#include <skillhost/skill.hpp>

#include <cstddef>
#include <string>

namespace skillhost_builtin::fs {

class PathGuard {
public:
    PathGuard(const skillhost::Call& call, skillhost_path_operation operation) : call_(call), operation_(operation) {}

    // `relative_path` is relative to the workspace root, as the walk reports it.
    bool allows(const std::string& relative_path) {
        if (call_.path_allowed(relative_path, operation_)) return true;
        ++withheld_;
        return false;
    }

    std::size_t withheld() const { return withheld_; }

    // Adds {"withheld": n} and, when something was withheld, a sentence saying why.
    void describe(skillhost::Json& out) const {
        out["withheld"] = static_cast<std::int64_t>(withheld_);
        if (withheld_ > 0)
            out["withheld_note"] = std::to_string(withheld_) +
                                   " entries were withheld because the user's path rules deny them; they and "
                                   "anything inside them were not listed, read or searched";
    }

private:
    const skillhost::Call& call_;
    skillhost_path_operation operation_;
    std::size_t withheld_ = 0;
};

}  // namespace skillhost_builtin::fs
