#include "operator/planner_catalog.hpp"

#include <boost/json.hpp>

namespace skillhost::op {
namespace {

using manifest::Schema;
using manifest::SchemaType;

void append_type(std::string& out, const Schema& schema) {
    if (!schema.enum_values.empty()) {
        for (std::size_t i = 0; i < schema.enum_values.size(); ++i) {
            if (i) out += '|';
            const auto& v = schema.enum_values[i];
            out += v.is_string() ? std::string(v.as_string()) : boost::json::serialize(v);
        }
        return;
    }
    if (schema.type == SchemaType::array) {
        out += schema.items ? std::string(manifest::to_string(schema.items->type)) : std::string("any");
        out += "[]";
        return;
    }
    out += manifest::to_string(schema.type);
}

}  // namespace

std::string first_sentence(std::string_view text, std::size_t max_chars) {
    std::string line;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
            break;
        }
        line += (c == '\n' || c == '\t') ? ' ' : c;
    }
    if (line.size() > max_chars) {
        auto cut = line.rfind(' ', max_chars);
        line.resize(cut == std::string::npos ? max_chars : cut);
        line += "...";
    }
    return line;
}

std::string render_planner_catalog(const std::vector<const catalog::CatalogEntry*>& entries) {
    std::string out;
    out.reserve(entries.size() * 240);
    for (const auto* entry : entries) {
        const auto& spec = *entry->spec;
        out += "- " + spec.id + ": " + first_sentence(spec.description.empty() ? spec.title : spec.description, 140);
        std::string notes;
        if (spec.annotations.read_only) notes += "read-only";
        if (spec.requires_approval) notes += std::string(notes.empty() ? "" : ", ") + "needs approval";
        if (!notes.empty()) out += " [" + notes + "]";
        out += "\n  in: ";
        if (spec.inputs.properties.empty()) out += "none";
        for (std::size_t i = 0; i < spec.inputs.properties.size(); ++i) {
            const auto& [name, schema] = spec.inputs.properties[i];
            if (i) out += "; ";
            out += name;
            if (!spec.inputs.is_required(name)) out += '?';
            out += ": ";
            append_type(out, schema);
            if (schema.enum_values.empty() && !schema.description.empty()) {
                out += " — " + first_sentence(schema.description, 60);
            }
        }
        if (spec.outputs.type == SchemaType::object && !spec.outputs.properties.empty()) {
            out += "\n  out: ";
            for (std::size_t i = 0; i < spec.outputs.properties.size(); ++i) {
                const auto& [name, schema] = spec.outputs.properties[i];
                if (i) out += ", ";
                out += name;
                if (schema.type == SchemaType::array) out += "[]";
            }
        }
        out += '\n';
    }
    return out;
}

}  // namespace skillhost::op
