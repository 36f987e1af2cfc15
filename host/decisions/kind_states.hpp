// How a kind of decision names the states every decision moves through (DecisionState): each kind
// declares one table, and its to_string, parsing and the conversions both ways are derived from it
// alike for every kind, so that a new kind states its words once and converts nothing by hand.
#pragma once

#include "decisions/pending_decision.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace skillhost::decisions {

inline constexpr std::size_t kDecisionStateCount = static_cast<std::size_t>(DecisionState::expired) + 1;

template <class State>
struct KindStateName {
    State state;       // the kind's state
    const char* word;  // its name in lists, filters, audit records and errors
};

template <class State>
using KindStateNames = std::array<KindStateName<State>, kDecisionStateCount>;

// Specialised by each kind with `static constexpr KindStateNames<State> names`: row i is what the
// kind calls DecisionState(i). A state the kind never reaches names the state it shows instead (a
// question is never rejected, so its `rejected` row is `failed`).
template <class State>
struct KindStates;

template <class State>
concept KindState = requires {
    KindStates<State>::names;
};

template <KindState State>
constexpr const char* to_string(State state) {
    for (const auto& name : KindStates<State>::names)
        if (name.state == state) return name.word;
    return "failed";
}

// The kind's state for a decision's state.
template <KindState State>
constexpr State kind_state(DecisionState state) {
    return KindStates<State>::names[static_cast<std::size_t>(state)].state;
}

// The decision's state a kind's state stands for (the first row that names it).
template <KindState State>
constexpr DecisionState decision_state(State state) {
    for (std::size_t i = 0; i < kDecisionStateCount; ++i)
        if (KindStates<State>::names[i].state == state) return static_cast<DecisionState>(i);
    return DecisionState::failed;
}

// The kind's state named `text` ("approved"), or nothing when the kind has no state of that name.
template <KindState State>
std::optional<State> parse_state(std::string_view text) {
    for (const auto& name : KindStates<State>::names)
        if (text == name.word) return name.state;
    return std::nullopt;
}

// The kind's state names, each once, in the order of the states they stand for ("pending",
// "approved", ...): what a filter accepts and a help text lists.
template <KindState State>
std::vector<std::string_view> state_words() {
    std::vector<std::string_view> words;
    for (const auto& name : KindStates<State>::names)
        if (std::find(words.begin(), words.end(), name.word) == words.end()) words.emplace_back(name.word);
    return words;
}

// The kind's word for a decision's state: what DecisionKindRules::state_word points to.
template <KindState State>
const char* kind_word(DecisionState state) {
    return to_string(kind_state<State>(state));
}

}  // namespace skillhost::decisions
