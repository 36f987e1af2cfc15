#include "offline_model/builtin_critic.hpp"

#include "language/text_scan.hpp"

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis
namespace {

boost::json::object verdict(bool approved, std::string feedback) {
    return boost::json::object{{"approved", approved}, {"feedback", std::move(feedback)}};
}

// The text of a section ("Observations:\n...") up to the next section header, or to the end.
std::string_view section(std::string_view review, std::string_view header, std::string_view next) {
    const auto at = review.find(header);
    if (at == std::string_view::npos) return {};
    std::string_view rest = review.substr(at + header.size());
    if (!next.empty()) {
        if (const auto end = rest.rfind(next); end != std::string_view::npos) rest = rest.substr(0, end);
    }
    return rest;
}

}  // namespace

boost::json::object critique(std::string_view review) {
    const std::string_view observations = section(review, "\nObservations:\n", "\nAnswer:\n");
    std::string_view answer = review;
    if (const auto at = review.rfind("\nAnswer:\n"); at != std::string_view::npos) answer = review.substr(at + 9);
    const std::string answer_text = trim(answer);
    if (answer_text.empty()) return verdict(false, "The answer is empty; answer the goal from the observations.");

    const std::string answer_lower = lowercase(answer_text);
    const std::string observed_lower = lowercase(observations);
    const bool a_step_failed = observed_lower.find(" failed: ") != std::string::npos;
    const bool admits_failure = has_any_phrase(
        answer_lower, {"fail", "failed", "could not", "couldn't", "cannot", "can't", "error", "not found", "unable"});
    if (a_step_failed && !admits_failure) {
        return verdict(false,
                       "A step failed but the answer does not say so; mention what failed and what to try instead.");
    }
    const bool data_observed = !observed_lower.empty() && !has_phrase(observed_lower, "no tool returned data") &&
                               observed_lower.find(":\n") != std::string::npos && !a_step_failed;
    if (data_observed && has_phrase(answer_lower, "i found no data")) {
        return verdict(false, "The observations have data but the answer says nothing was found; answer from them.");
    }
    return verdict(true, "The answer uses the observations and reports what failed.");
}

}  // namespace skillhost::offline_model
