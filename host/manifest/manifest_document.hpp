// Internal to manifest/: what reading any file of a plugin directory shares, a native plugin manifest
// or a foreign server declaration: the file's text, its one YAML document, the `permissions:` block,
// and the MANIFEST_INVALID error that lists every problem.
#pragma once

#include "base/error.hpp"
#include "manifest/manifest.hpp"
#include "manifest/yaml_field.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::manifest::detail {

// The text's one YAML document as the root Field (positioned at 1:1 when empty). nullopt after a
// syntax error; that, and a second document, are reported into `problems`.
std::optional<Field> read_document(std::string_view yaml_text, ProblemList& problems);

// The whole file; MANIFEST_UNREADABLE naming the file and the reason when it cannot be read.
Result<std::string> read_manifest_text(const std::filesystem::path& file);

// MANIFEST_INVALID: the first problem as the message, every problem in details.problems.
Error invalid_manifest(const std::vector<ManifestProblem>& problems, const std::filesystem::path& file);

// The field under `key`; when absent, a problem "missing required field 'key'; <what>" at the mapping
// (field path "<mapping path>.key").
const Field* required_field(const FieldMap& map, std::string_view key, std::string_view what, ProblemList& problems);

// What is wrong with a text, or nullopt when it is fine.
using Check = std::function<std::optional<std::string>(const std::string&)>;
// A required string field (required_field) that `check` accepts; what `check` says is the problem.
std::optional<std::string> read_checked(const FieldMap& map, std::string_view key, std::string_view what,
                                        const Check& check, ProblemList& problems);

// The text's document read by `read` (Field, ProblemList&) -> std::optional<Parsed>, which reports
// whatever it returns nullopt for: the value, or MANIFEST_INVALID listing every problem.
template <class Parsed, class Reader>
Result<Parsed> parse_document(std::string_view yaml_text, const std::filesystem::path& file, Reader read) {
    ProblemList problems(file.string());
    std::optional<Parsed> parsed;
    if (auto root = read_document(yaml_text, problems)) parsed = read(*root, problems);
    if (!problems.empty() || !parsed) return invalid_manifest(problems.sorted(), file);
    return std::move(*parsed);
}

// A reader for parse_document: a `Parsed` from `file` (Manifest, ForeignServer) filled by `read`.
template <class Parsed>
auto filled_by(void (*read)(const Field&, Parsed&, ProblemList&), const std::filesystem::path& file) {
    return [read, &file](const Field& root, ProblemList& problems) {
        Parsed parsed;
        parsed.file = file;
        read(root, parsed, problems);
        return parsed;
    };
}

// The file's text given to `parse`, or MANIFEST_UNREADABLE.
template <class Parsed>
Result<Parsed> load_document(const std::filesystem::path& file,
                             Result<Parsed> (*parse)(std::string_view, const std::filesystem::path&)) {
    auto text = read_manifest_text(file);
    if (!text.ok()) return std::move(text.error());
    return parse(text.value(), file);
}

// Reads each item with `read` (Field, ProblemList&) -> std::optional<Entry> and keeps it unless an
// earlier entry has the same id (`id_of`); that is reported at the item's `id` as "duplicate <what>
// 'ID' (first declared at line N); <advice>".
template <class Entry, class Read, class IdOf>
void read_unique_entries(const std::vector<Field>& items, std::vector<Entry>& entries, Read read, IdOf id_of,
                         std::string_view what, std::string_view advice, ProblemList& problems) {
    for (const Field& item : items) {
        std::optional<Entry> entry = read(item, problems);
        if (!entry) continue;
        const std::string& id = id_of(*entry);
        const auto first = std::find_if(entries.begin(), entries.end(),
                                        [&](const Entry& other) { return !id.empty() && id_of(other) == id; });
        if (first != entries.end()) {
            problems.add(item.at, item.path + ".id",
                         "duplicate " + std::string(what) + " '" + id + "' (first declared at line " +
                             std::to_string(first->position.line) + "); " + std::string(advice));
            continue;
        }
        entries.push_back(std::move(*entry));
    }
}

// A native plugin manifest from its root node.
void read_manifest(const Field& root, Manifest& manifest, ProblemList& problems);

// A `permissions:` block (workspace, network, llm).
void read_permissions(const Field& field, Permissions& permissions, ProblemList& problems);

}  // namespace skillhost::manifest::detail
