#include "grounding/grounding_check.hpp"

#include "grounding/answer_under_check.hpp"

namespace skillhost::grounding {

std::vector<UnsupportedClaim> unsupported_claims(std::string_view answer, const GroundingFacts& facts) {
    detail::AnswerUnderCheck checked(answer, facts);
    detail::check_values(checked);
    detail::check_quoted_text(checked);
    detail::check_statuses(checked);
    return checked.take();
}

}  // namespace skillhost::grounding
