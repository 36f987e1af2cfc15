// Every kind of decision names the states all decisions move through, and its words build its
// errors and listings: each kind's names read back to the same state, each decision state has a
// name in every kind, and the kinds' ids, nouns and codes are their own.
#include "decisions/decision_kinds.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace skillhost::decisions {
namespace {

constexpr DecisionState every_state[] = {DecisionState::pending, DecisionState::claimed,  DecisionState::succeeded,
                                         DecisionState::failed,  DecisionState::rejected, DecisionState::expired};

template <class State>
void expect_names_read_back() {
    for (const DecisionState state : every_state) {
        const State kind = kind_state<State>(state);
        const char* word = to_string(kind);
        ASSERT_NE(word, nullptr);
        EXPECT_EQ(parse_state<State>(word), kind) << word;
        EXPECT_EQ(kind_state<State>(decision_state(kind)), kind) << word;
        EXPECT_STREQ(kind_word<State>(state), word);
    }
    EXPECT_FALSE(parse_state<State>("").has_value());
    EXPECT_FALSE(parse_state<State>("PENDING").has_value()) << "state names are matched exactly";
}

TEST(DecisionKinds, EveryKindsStateNamesReadBackToTheSameState) {
    expect_names_read_back<ApprovalState>();
    expect_names_read_back<ElicitationState>();
}

TEST(DecisionKinds, AnApprovalNamesEachStepOfItsLife) {
    EXPECT_STREQ(to_string(kind_state<ApprovalState>(DecisionState::claimed)), "approved");
    EXPECT_STREQ(to_string(kind_state<ApprovalState>(DecisionState::succeeded)), "executed");
    EXPECT_STREQ(to_string(kind_state<ApprovalState>(DecisionState::rejected)), "rejected");
    EXPECT_EQ(decision_state(ApprovalState::approved), DecisionState::claimed);
}

TEST(DecisionKinds, AQuestionIsNeverRejectedItShowsAsFailed) {
    EXPECT_EQ(kind_state<ElicitationState>(DecisionState::rejected), ElicitationState::failed);
    EXPECT_EQ(decision_state(ElicitationState::failed), DecisionState::failed);
    EXPECT_FALSE(parse_state<ElicitationState>("rejected").has_value());
    EXPECT_STREQ(to_string(ElicitationState::answered), "answered");
    EXPECT_EQ(decision_state(ElicitationState::completed), DecisionState::succeeded);
}

TEST(DecisionKinds, EachKindHasItsOwnRowIdsAndCodes) {
    std::set<std::string> prefixes, nouns, codes;
    for (const DecisionKind kind : {DecisionKind::approval, DecisionKind::question}) {
        const DecisionKindRules& rules = rules_of(kind);
        EXPECT_EQ(rules.kind, kind);
        EXPECT_TRUE(prefixes.insert(std::string(rules.id_prefix)).second) << rules.id_prefix;
        EXPECT_TRUE(nouns.insert(std::string(rules.noun)).second) << rules.noun;
        for (const ErrorCode& code : {rules.codes.not_found, rules.codes.not_allowed, rules.codes.already_decided,
                                      rules.codes.expired, rules.codes.not_claimed})
            EXPECT_TRUE(codes.insert(std::string(code.name)).second) << code.name << " serves two kinds or errors";
        EXPECT_EQ(rules.codes.not_found.kind, ErrorKind::not_found);
        EXPECT_EQ(rules.codes.not_allowed.kind, ErrorKind::forbidden);
        ASSERT_NE(rules.state_word, nullptr);
        ASSERT_NE(rules.audit_fields, nullptr);
        EXPECT_STREQ(rules.state_word(DecisionState::pending), "pending");
        EXPECT_FALSE(rules.interrupted_reason.empty());
    }
}

}  // namespace
}  // namespace skillhost::decisions
