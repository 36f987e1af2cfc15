#include "operator/observation_format.hpp"

#include <boost/json.hpp>

#include <array>

namespace skillhost::op {
namespace {

namespace json = boost::json;

std::string scalar_text(const json::value& v) {
    if (v.is_string()) return std::string(v.as_string());
    if (v.is_null()) return "none";
    if (v.is_array()) {
        std::string out;
        for (const auto& item : v.as_array()) {
            if (!out.empty()) out += ", ";
            out += item.is_string() || !item.is_structured() ? scalar_text(item) : json::serialize(item);
        }
        return out;
    }
    return json::serialize(v);
}

bool is_scalar_list(const json::value& v) {
    if (!v.is_array()) return false;
    for (const auto& item : v.as_array()) {
        if (item.is_structured()) return false;
    }
    return true;
}

constexpr std::array<std::string_view, 5> kTitleKeys = {"title", "name", "path", "text", "id"};

std::string_view title_key(const json::object& record) {
    for (auto key : kTitleKeys) {
        if (const auto* v = record.if_contains(key); v && !v->is_structured() && !v->is_null()) return key;
    }
    return {};
}

void render_record_line(const json::object& record, std::string& out, const std::string& indent) {
    const std::string_view key = title_key(record);
    out += indent + "- ";
    bool first = true;
    if (!key.empty()) {
        out += scalar_text(record.at(key));
        first = false;
    }
    std::string rest;
    for (const auto& [k, v] : record) {
        if (k == key || v.is_null() || (v.is_string() && v.as_string().empty())) continue;
        if (v.is_object() || (v.is_array() && !is_scalar_list(v))) continue;
        if (v.is_array() && v.as_array().empty()) continue;
        if (!rest.empty()) rest += ", ";
        rest += std::string(k) + ": " + scalar_text(v);
    }
    if (!rest.empty()) out += first ? rest : " (" + rest + ")";
    out += "\n";
}

void render_value(std::string_view name, const json::value& v, std::string& out, const std::string& indent) {
    const std::string label = name.empty() ? std::string() : std::string(name) + ": ";
    if (v.is_string() && v.as_string().find('\n') != json::string::npos) {
        out += indent + (name.empty() ? std::string() : std::string(name) + ":") + "\n";
        std::string_view text = v.as_string();
        std::size_t start = 0;
        while (start <= text.size()) {
            const auto end = text.find('\n', start);
            const auto line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
            if (!(end == std::string_view::npos && line.empty())) out += indent + "  " + std::string(line) + "\n";
            if (end == std::string_view::npos) break;
            start = end + 1;
        }
        return;
    }
    if (!v.is_structured() || is_scalar_list(v)) {
        out += indent + label + scalar_text(v) + "\n";
        return;
    }
    if (v.is_array()) {
        const auto& items = v.as_array();
        out += indent + (name.empty() ? std::string("items") : std::string(name)) + " (" +
               std::to_string(items.size()) + "):\n";
        if (items.empty()) out += indent + "  (none)\n";
        for (const auto& item : items) {
            if (item.is_object())
                render_record_line(item.as_object(), out, indent + "  ");
            else
                out += indent + "  - " + json::serialize(item) + "\n";
        }
        return;
    }
    if (!name.empty()) out += indent + std::string(name) + ":\n";
    for (const auto& [k, sub] : v.as_object()) render_value(k, sub, out, name.empty() ? indent : indent + "  ");
}

void pretty(const json::value& v, std::string& out, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    const std::string inner(static_cast<std::size_t>(depth + 1) * 2, ' ');
    if (v.is_object() && !v.as_object().empty()) {
        out += "{\n";
        bool first = true;
        for (const auto& [k, sub] : v.as_object()) {
            if (!first) out += ",\n";
            first = false;
            out += inner + json::serialize(json::string(k)) + ": ";
            pretty(sub, out, depth + 1);
        }
        out += "\n" + pad + "}";
    } else if (v.is_array() && !v.as_array().empty()) {
        out += "[\n";
        bool first = true;
        for (const auto& sub : v.as_array()) {
            if (!first) out += ",\n";
            first = false;
            out += inner;
            pretty(sub, out, depth + 1);
        }
        out += "\n" + pad + "]";
    } else {
        out += json::serialize(v);
    }
}

}  // namespace

std::string render_structured(const json::value& payload) {
    std::string out;
    render_value({}, payload, out, "");
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

std::string render_pretty_json(const json::value& payload) {
    std::string out;
    pretty(payload, out, 0);
    return out;
}

std::string render_narrative(std::string_view tool, const json::value& payload) {
    return std::string(tool) + " returned:\n" + render_structured(payload);
}

std::string render_observation(store::ObservationMode mode, std::string_view tool, const json::value& payload) {
    switch (mode) {
        case store::ObservationMode::structured: return render_structured(payload);
        case store::ObservationMode::verbatim: return render_pretty_json(payload);
        case store::ObservationMode::narrative: break;
    }
    return render_narrative(tool, payload);
}

std::string limit_text(std::string text, std::size_t max_chars) {
    if (text.size() <= max_chars) return text;
    std::size_t cut = text.rfind('\n', max_chars);
    if (cut == std::string::npos || cut < max_chars / 2) cut = max_chars;
    // Never cut inside a UTF-8 sequence.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    const std::size_t left_out = text.size() - cut;
    text.resize(cut);
    text += "\n[... " + std::to_string(left_out) + " more characters not shown]";
    return text;
}

}  // namespace skillhost::op
