// Words the operator puts in an answer request's instructions: prose any model follows, which the
// offline model (reading the instructions, not a prompt) recognises as well.
#pragma once

#include <string_view>

namespace skillhost::llm {

// How the operator hands the planner's note (the candidates of an ambiguous reference, why no tool
// can do the goal) to the answer: instructions that start with this line, the note after it.
inline constexpr std::string_view kNoteLead = "Tell the user this first, in these words:\n";

}  // namespace skillhost::llm
