#include "manifest/skill_spec.hpp"

#include <array>
#include <utility>

namespace skillhost::manifest {

namespace {

// One table per enum keeps to_string and parse_* from drifting apart.
template <class Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, const char*>, N>;

constexpr NameTable<Risk, 3> kRiskNames{{{Risk::low, "low"}, {Risk::medium, "medium"}, {Risk::high, "high"}}};
constexpr NameTable<Cost, 3> kCostNames{{{Cost::free, "free"}, {Cost::cheap, "cheap"}, {Cost::expensive, "expensive"}}};
constexpr NameTable<TrustLevel, 5> kTrustNames{{{TrustLevel::observe, "observe"},
                                                {TrustLevel::suggest, "suggest"},
                                                {TrustLevel::supervised_auto, "supervised_auto"},
                                                {TrustLevel::bounded_auto, "bounded_auto"},
                                                {TrustLevel::adaptive_auto, "adaptive_auto"}}};
constexpr NameTable<Concurrency, 2> kConcurrencyNames{
    {{Concurrency::parallel, "parallel"}, {Concurrency::serial, "serial"}}};

template <class Enum, std::size_t N>
const char* name_of(const NameTable<Enum, N>& table, Enum value) {
    for (const auto& [entry, name] : table) {
        if (entry == value) return name;
    }
    return "unknown";
}

template <class Enum, std::size_t N>
std::optional<Enum> parse_name(const NameTable<Enum, N>& table, std::string_view text) {
    for (const auto& [entry, name] : table) {
        if (text == name) return entry;
    }
    return std::nullopt;
}

}  // namespace

const char* to_string(Risk value) {
    return name_of(kRiskNames, value);
}
const char* to_string(Cost value) {
    return name_of(kCostNames, value);
}
const char* to_string(TrustLevel value) {
    return name_of(kTrustNames, value);
}
const char* to_string(Concurrency value) {
    return name_of(kConcurrencyNames, value);
}

std::optional<Risk> parse_risk(std::string_view text) {
    return parse_name(kRiskNames, text);
}
std::optional<Cost> parse_cost(std::string_view text) {
    return parse_name(kCostNames, text);
}
std::optional<TrustLevel> parse_trust_level(std::string_view text) {
    return parse_name(kTrustNames, text);
}
std::optional<Concurrency> parse_concurrency(std::string_view text) {
    return parse_name(kConcurrencyNames, text);
}

const ErrorHint* SkillSpec::hint_for(std::string_view code) const {
    for (const auto& hint : error_hints) {
        if (hint.code == code) return &hint;
    }
    return nullptr;
}

}  // namespace skillhost::manifest
