#include "exec/near_names.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace skillhost::exec {
namespace {

char fold(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool contains_folded(std::string_view haystack, std::string_view needle) {
    if (needle.empty() || needle.size() > haystack.size()) return false;
    return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                       [](char x, char y) { return fold(x) == fold(y); }) != haystack.end();
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment distance with three rolling rows.
    const std::size_t n = b.size();
    std::vector<std::size_t> before(n + 1), previous(n + 1), current(n + 1);
    std::iota(previous.begin(), previous.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= n; ++j) {
            const std::size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]))
                current[j] = std::min(current[j], before[j - 2] + 1);
        }
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return previous[n];
}

std::vector<std::string> near_names(std::string_view name, const std::vector<std::string_view>& candidates,
                                    std::size_t limit) {
    struct Scored {
        std::size_t score;
        std::size_t order;
        std::string_view candidate;
    };
    std::vector<Scored> scored;
    const std::size_t allowed = std::max<std::size_t>(1, name.size() / 3);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const std::string_view candidate = candidates[i];
        if (candidate == name) continue;
        const std::size_t distance = edit_distance(name, candidate);
        if (distance <= allowed) {
            scored.push_back({distance, i, candidate});
        } else if (name.size() >= 3 && (contains_folded(candidate, name) || contains_folded(name, candidate))) {
            // A fragment of the real name ("create" for "task_create") is a near miss too, ranked
            // after every real typo.
            scored.push_back(
                {allowed + 1 +
                     (candidate.size() > name.size() ? candidate.size() - name.size() : name.size() - candidate.size()),
                 i, candidate});
        }
    }
    std::stable_sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) {
        return x.score != y.score ? x.score < y.score : x.order < y.order;
    });
    std::vector<std::string> out;
    for (const auto& s : scored) {
        if (out.size() == limit) break;
        out.emplace_back(s.candidate);
    }
    return out;
}

}  // namespace skillhost::exec
