// Corrects the two path mistakes planners make most: a leading slash on a workspace-relative path
// ("/README.md" for README.md), and a file name that is almost right when exactly one file in the
// workspace is close to it. Every fix is reported so the observation can say "auto-fixed A → B".
#pragma once

#include "manifest/skill_spec.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace skillhost::op {

struct PathFix {
    std::string input;  // the argument name
    std::string from;
    std::string to;
};

// Fixes `args` in place for the skill's path inputs. Close-name matches are only tried for
// read-only skills (a write to a new name is not a mistake).
std::vector<PathFix> autofix_paths(const manifest::SkillSpec& spec, boost::json::object& args,
                                   const std::filesystem::path& workspace);

}  // namespace skillhost::op
