// The one-line description an approver sees: "Write a file (fs_write): path=notes/a.txt, content=…".
#pragma once

#include "manifest/skill_spec.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace skillhost::decisions {

// Skill title and id, then the key arguments: path inputs and required inputs first, then the
// rest, each value shortened to ~60 characters; secret-looking names show "[redacted]".
std::string make_approval_preview(const manifest::SkillSpec& skill, const boost::json::value& args);

}  // namespace skillhost::decisions
