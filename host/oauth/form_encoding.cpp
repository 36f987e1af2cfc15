#include "oauth/form_encoding.hpp"

#include "base/percent_encoding.hpp"

namespace skillhost::oauth {
namespace {

// Decoded, or as written when an escape is malformed.
std::string decode(std::string_view text) {
    std::string out;
    return percent_decode(text, out) ? out : std::string(text);
}

}  // namespace

std::string form_encode(const FormFields& fields) {
    std::string out;
    for (const auto& [name, value] : fields) {
        if (!out.empty()) out += '&';
        out += percent_encode(name);
        out += '=';
        out += percent_encode(value);
    }
    return out;
}

FormFields form_decode(std::string_view text) {
    FormFields fields;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('&', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view pair = text.substr(start, end - start);
        if (!pair.empty()) {
            const std::size_t eq = pair.find('=');
            if (eq == std::string_view::npos)
                fields.emplace_back(decode(pair), "");
            else
                fields.emplace_back(decode(pair.substr(0, eq)), decode(pair.substr(eq + 1)));
        }
        start = end + 1;
    }
    return fields;
}

std::string form_value(const FormFields& fields, std::string_view name) {
    for (const auto& [key, value] : fields)
        if (key == name) return value;
    return {};
}

FormFields query_of(std::string_view url) {
    const std::size_t hash = url.find('#');
    if (hash != std::string_view::npos) url = url.substr(0, hash);
    const std::size_t question = url.find('?');
    if (question == std::string_view::npos) return {};
    return form_decode(url.substr(question + 1));
}

}  // namespace skillhost::oauth
