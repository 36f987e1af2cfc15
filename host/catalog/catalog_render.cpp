#include "catalog/catalog_render.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace skillhost::catalog {
namespace {

namespace json = boost::json;
using manifest::Schema;
using manifest::SchemaType;
using manifest::SkillSpec;

// Descriptions in manifests are often folded YAML blocks; a prompt wants them on one line.
void append_one_line(std::string& out, std::string_view text) {
    bool space = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = true;
            continue;
        }
        if (space && !out.empty() && out.back() != ' ' && out.back() != '(') out += ' ';
        space = false;
        out += c;
    }
}

// The first sentence, without its final period: the prompt budget (about 2,000 tokens for the
// built-in catalog) has no room for the rest, and the JSON and tool formats keep the full text.
// A sentence ends at ". " before a capital letter, so "e.g. x" does not end one.
std::string_view first_sentence(std::string_view text) {
    for (std::size_t i = 0; i + 2 < text.size(); ++i) {
        if (text[i] == '.' && (text[i + 1] == ' ' || text[i + 1] == '\n') &&
            std::isupper(static_cast<unsigned char>(text[i + 2]))) {
            text = text.substr(0, i + 1);
            break;
        }
    }
    while (!text.empty() && (text.back() == '.' || text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
    return text;
}

void append_value(std::string& out, const json::value& v) {
    if (v.is_string())
        out += v.get_string();
    else
        out += json::serialize(v);
}

void append_number(std::string& out, double d) {
    json::value v = d;
    if (d == static_cast<double>(static_cast<long long>(d))) v = static_cast<long long>(d);
    out += json::serialize(v);
}

void append_type(std::string& out, const Schema& schema) {
    out += manifest::to_string(schema.type);
    if (schema.type == SchemaType::array && schema.items && schema.items->type != SchemaType::any) {
        out += " of ";
        append_type(out, *schema.items);
    }
    if (!schema.properties.empty()) {
        out += " {";
        for (std::size_t i = 0; i < schema.properties.size(); ++i) {
            if (i) out += ", ";
            out += schema.properties[i].first;
        }
        out += '}';
    }
}

void append_input(std::string& out, const std::string& name, const Schema& schema, bool required) {
    out += name;
    // Most inputs are strings; the legend line says so once instead of on every input.
    const bool show_type = schema.type != SchemaType::string || !schema.properties.empty();
    if (show_type || required) {
        out += " (";
        if (show_type) append_type(out, schema);
        if (show_type && required) out += ", ";
        if (required) out += "required";
        out += ')';
    }
    if (!schema.description.empty()) {
        out += " — ";
        append_one_line(out, first_sentence(schema.description));
    }
    if (!schema.enum_values.empty()) {
        out += "; enum ";
        for (std::size_t i = 0; i < schema.enum_values.size(); ++i) {
            if (i) out += '|';
            append_value(out, schema.enum_values[i]);
        }
    }
    if (schema.minimum && schema.maximum) {
        out += "; ";
        append_number(out, *schema.minimum);
        out += "..";
        append_number(out, *schema.maximum);
    } else if (schema.minimum) {
        out += "; >=";
        append_number(out, *schema.minimum);
    } else if (schema.maximum) {
        out += "; <=";
        append_number(out, *schema.maximum);
    }
    if (schema.pattern) out += "; pattern " + *schema.pattern;
    // false and "" are what an absent boolean or text means anyway; saying so wastes the budget.
    const auto& d = schema.default_value;
    const bool says_nothing = d && ((d->is_bool() && !d->get_bool()) || (d->is_string() && d->get_string().empty()));
    if (d && !says_nothing) {
        out += "; default ";
        out += json::serialize(*schema.default_value);
    }
}

void append_notes(std::string& out, const SkillSpec& spec) {
    std::vector<std::string> notes;
    if (spec.annotations.read_only) notes.emplace_back("read-only");
    if (spec.annotations.destructive) notes.emplace_back("destructive");
    if (spec.annotations.open_world) notes.emplace_back("open-world");
    if (spec.risk != manifest::Risk::low) notes.push_back(std::string("risk=") + manifest::to_string(spec.risk));
    if (spec.cost != manifest::Cost::free) notes.push_back(std::string("cost=") + manifest::to_string(spec.cost));
    if (spec.min_trust != manifest::TrustLevel::observe)
        notes.push_back(std::string("min trust=") + manifest::to_string(spec.min_trust));
    if (spec.requires_approval) notes.emplace_back("needs approval");
    if (notes.empty()) return;
    out += "  notes: ";
    for (std::size_t i = 0; i < notes.size(); ++i) {
        if (i) out += ", ";
        out += notes[i];
    }
    out += '\n';
}

// What the plugin may touch when it runs isolated, so a user sees it before enabling the plugin.
json::object permissions_json(const manifest::Manifest& m) {
    return json::object{{"workspace", manifest::to_string(m.permissions.workspace)},
                        {"network", m.permissions.network},
                        {"llm", m.permissions.llm},
                        {"declared", m.permissions.declared}};
}

json::object skill_json(const CatalogEntry& entry) {
    const SkillSpec& spec = *entry.spec;
    const auto& m = entry.plugin->manifest();
    json::object out;
    out["id"] = spec.id;
    out["title"] = spec.title;
    out["description"] = spec.description;
    out["category"] = spec.category;
    out["plugin"] = m.name;
    out["plugin_version"] = m.version;
    out["inputs"] = spec.foreign ? json::value(spec.foreign->input_schema) : json::value(spec.inputs.to_json_schema());
    out["outputs"] = spec.foreign && spec.foreign->output_schema ? json::value(*spec.foreign->output_schema)
                                                                 : json::value(spec.outputs.to_json_schema(false));
    if (spec.foreign) {
        // Where the tool comes from, and what its server claims about it (not what the host applies).
        out["foreign"] = json::object{{"server", spec.foreign->server},
                                      {"tool", spec.foreign->tool},
                                      {"server_annotations", spec.foreign->annotations}};
    }
    out["risk"] = manifest::to_string(spec.risk);
    out["cost"] = manifest::to_string(spec.cost);
    out["min_trust"] = manifest::to_string(spec.min_trust);
    out["requires_approval"] = spec.requires_approval;
    out["annotations"] = json::object{{"read_only", spec.annotations.read_only},
                                      {"destructive", spec.annotations.destructive},
                                      {"idempotent", spec.annotations.idempotent},
                                      {"open_world", spec.annotations.open_world}};
    out["permissions"] = permissions_json(m);
    out["isolation"] = entry.plugin->isolated() ? "process" : "in_process";
    out["timeout_ms"] = spec.timeout_ms;
    out["concurrency"] = manifest::to_string(spec.concurrency);
    json::array paths;
    for (const auto& p : spec.path_inputs) paths.emplace_back(p);
    out["path_inputs"] = std::move(paths);
    json::array hints;
    for (const auto& hint : spec.error_hints) {
        json::array suggestions;
        for (const auto& s : hint.suggestions) suggestions.emplace_back(s);
        hints.push_back(json::object{{"code", hint.code}, {"suggestions", std::move(suggestions)}});
    }
    out["error_hints"] = std::move(hints);
    json::array examples;
    for (const auto& ex : spec.examples)
        examples.push_back(json::object{{"description", ex.description}, {"args", ex.args}});
    out["examples"] = std::move(examples);
    return out;
}

// Tool schemas must be objects even for a skill that takes nothing. A foreign tool's is the schema
// its server gave, as given.
json::object input_object_schema(const SkillSpec& spec) {
    if (spec.foreign) return spec.foreign->input_schema;
    const Schema& inputs = spec.inputs;
    json::object schema = inputs.to_json_schema();
    if (inputs.type != SchemaType::object) {
        schema = json::object{{"type", "object"}, {"properties", json::object{}}, {"additionalProperties", false}};
    }
    if (!schema.contains("properties")) schema["properties"] = json::object{};
    return schema;
}

std::string tool_description(const SkillSpec& spec) {
    std::string out;
    append_one_line(out, spec.description.empty() ? spec.title : spec.description);
    return out;
}

}  // namespace

std::string render_catalog_text(const std::vector<const CatalogEntry*>& entries) {
    std::string out;
    out.reserve(entries.size() * 200 + 64);
    if (!entries.empty()) out += "Skills (inputs are strings unless a type is shown):\n";
    for (const CatalogEntry* entry : entries) {
        const SkillSpec& spec = *entry->spec;
        out += "- ";
        out += spec.id;
        out += ": ";
        append_one_line(out, first_sentence(spec.description.empty() ? spec.title : spec.description));
        out += "\n  inputs: ";
        if (spec.inputs.properties.empty()) out += "none";
        for (std::size_t i = 0; i < spec.inputs.properties.size(); ++i) {
            const auto& [name, schema] = spec.inputs.properties[i];
            if (i) out += "; ";
            append_input(out, name, schema, spec.inputs.is_required(name));
        }
        out += '\n';
        if (spec.outputs.type == SchemaType::object && !spec.outputs.properties.empty()) {
            out += "  outputs: ";
            for (std::size_t i = 0; i < spec.outputs.properties.size(); ++i) {
                const auto& [name, schema] = spec.outputs.properties[i];
                if (i) out += ", ";
                out += name;  // names only: the planner reads values from the observation itself
            }
            out += '\n';
        } else if (spec.outputs.type != SchemaType::any) {
            out += "  outputs: ";
            append_type(out, spec.outputs);
            out += '\n';
        }
        append_notes(out, spec);
    }
    return out;
}

boost::json::array render_catalog_json(const std::vector<const CatalogEntry*>& entries) {
    json::array out;
    out.reserve(entries.size());
    for (const CatalogEntry* entry : entries) out.push_back(skill_json(*entry));
    return out;
}

boost::json::array render_catalog_openai(const std::vector<const CatalogEntry*>& entries) {
    json::array out;
    out.reserve(entries.size());
    for (const CatalogEntry* entry : entries) {
        const SkillSpec& spec = *entry->spec;
        out.push_back(json::object{{"type", "function"},
                                   {"function", json::object{{"name", spec.id},
                                                             {"description", tool_description(spec)},
                                                             {"parameters", input_object_schema(spec)}}}});
    }
    return out;
}

boost::json::object render_mcp_tool(const CatalogEntry& entry) {
    const SkillSpec& spec = *entry.spec;
    json::object tool;
    tool["name"] = spec.id;
    tool["title"] = spec.title.empty() ? spec.id : spec.title;
    tool["description"] = tool_description(spec);
    tool["inputSchema"] = input_object_schema(spec);
    if (spec.foreign && spec.foreign->output_schema) {
        tool["outputSchema"] = *spec.foreign->output_schema;
    } else if (!spec.foreign && spec.outputs.type == SchemaType::object) {
        tool["outputSchema"] = spec.outputs.to_json_schema(false);
    }
    tool["annotations"] = json::object{{"title", tool["title"]},
                                       {"readOnlyHint", spec.annotations.read_only},
                                       {"destructiveHint", spec.annotations.destructive},
                                       {"idempotentHint", spec.annotations.idempotent},
                                       {"openWorldHint", spec.annotations.open_world}};
    tool["_meta"] = json::object{{"skillhost/permissions", permissions_json(entry.plugin->manifest())},
                                 {"skillhost/isolation", entry.plugin->isolated() ? "process" : "in_process"}};
    return tool;
}

boost::json::array render_catalog_mcp(const std::vector<const CatalogEntry*>& entries) {
    json::array out;
    out.reserve(entries.size());
    for (const CatalogEntry* entry : entries) out.push_back(render_mcp_tool(*entry));
    return out;
}

std::string render_catalog_table(const std::vector<const CatalogEntry*>& entries) {
    constexpr std::size_t columns = 6;
    using Row = std::array<std::string, columns>;
    std::vector<Row> rows;
    rows.reserve(entries.size() + 1);
    rows.push_back({"SKILL", "PLUGIN", "VERSION", "RISK", "MIN TRUST", "FLAGS"});
    for (const CatalogEntry* entry : entries) {
        const SkillSpec& spec = *entry->spec;
        std::string flags;
        auto flag = [&](bool on, const char* name) {
            if (!on) return;
            if (!flags.empty()) flags += ',';
            flags += name;
        };
        flag(spec.annotations.read_only, "read-only");
        flag(spec.annotations.destructive, "destructive");
        flag(spec.annotations.open_world, "open-world");
        flag(spec.requires_approval, "approval");
        flag(spec.concurrency == manifest::Concurrency::serial, "serial");
        rows.push_back({spec.id, entry->plugin->manifest().name, entry->plugin->manifest().version,
                        manifest::to_string(spec.risk), manifest::to_string(spec.min_trust),
                        flags.empty() ? "-" : flags});
    }
    std::array<std::size_t, columns> width{};
    for (const auto& row : rows)
        for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], row[c].size());
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < columns; ++c) {
            line += row[c];
            if (c + 1 < columns) line.append(width[c] - row[c].size() + 2, ' ');
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line;
        out += '\n';
    }
    return out;
}

std::vector<const CatalogEntry*> all_entries(const CatalogSnapshot& snapshot) {
    std::vector<const CatalogEntry*> out;
    out.reserve(snapshot.entries().size());
    for (const auto& entry : snapshot.entries()) out.push_back(&entry);
    return out;
}

boost::json::array render_failures(const CatalogSnapshot& snapshot) {
    boost::json::array out;
    for (const auto& f : snapshot.failures()) {
        boost::json::object o;
        o["manifest"] = f.manifest_file.string();
        o["plugin"] = f.plugin_name;
        o["error"] = f.error.to_json();
        out.push_back(std::move(o));
    }
    return out;
}

boost::json::object render_skill_list(const CatalogSnapshot& snapshot,
                                      const std::vector<const CatalogEntry*>& entries) {
    boost::json::object out;
    out["catalog_version"] = snapshot.version();
    boost::json::array skills;
    for (const auto* e : entries) {
        boost::json::object s;
        s["id"] = e->spec->id;
        s["title"] = e->spec->title;
        s["plugin"] = e->plugin->manifest().name;
        s["plugin_version"] = std::string(e->plugin->version());
        s["risk"] = manifest::to_string(e->spec->risk);
        s["min_trust"] = manifest::to_string(e->spec->min_trust);
        s["read_only"] = e->spec->annotations.read_only;
        s["requires_approval"] = e->spec->requires_approval;
        skills.push_back(std::move(s));
    }
    out["skills"] = std::move(skills);
    out["plugins"] = render_plugin_list(entries);
    out["failures"] = render_failures(snapshot);
    return out;
}

boost::json::array render_plugin_list(const std::vector<const CatalogEntry*>& entries) {
    boost::json::array out;
    std::vector<const plugin::LoadedPlugin*> seen;
    for (const auto* e : entries) {
        const plugin::LoadedPlugin* p = e->plugin.get();
        if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
        seen.push_back(p);
        json::object o{{"name", p->manifest().name},
                       {"version", std::string(p->version())},
                       {"isolation", p->isolated() ? "process" : "in_process"},
                       {"permissions", permissions_json(p->manifest())}};
        if (p->isolated()) {
            o["sandbox"] = p->sandbox();
            o["supervision"] = p->supervision();
        }
        out.push_back(std::move(o));
    }
    return out;
}

std::string render_catalog(const std::vector<const CatalogEntry*>& entries, RenderFormat format) {
    switch (format) {
        case RenderFormat::text: return render_catalog_text(entries);
        case RenderFormat::json: return boost::json::serialize(render_catalog_json(entries));
        case RenderFormat::openai: return boost::json::serialize(render_catalog_openai(entries));
        case RenderFormat::mcp: return boost::json::serialize(render_catalog_mcp(entries));
        case RenderFormat::table: return render_catalog_table(entries);
    }
    return {};
}

std::optional<RenderFormat> parse_render_format(std::string_view name) {
    if (name == "text") return RenderFormat::text;
    if (name == "json") return RenderFormat::json;
    if (name == "openai") return RenderFormat::openai;
    if (name == "mcp") return RenderFormat::mcp;
    if (name == "table") return RenderFormat::table;
    return std::nullopt;
}

}  // namespace skillhost::catalog
