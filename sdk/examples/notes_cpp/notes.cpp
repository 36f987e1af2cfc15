// notes_cpp — a skillhost plugin written with skill.hpp: each skill is an ordinary C++ function,
// errors are exceptions (SkillError carries the code the manifest's error_hints refer to), and
// SKILLHOST_PLUGIN defines the one exported entry point.
//
// Both skills are `concurrency: serial` in the manifest, so the host never runs two at once and
// the read-modify-write of the note file needs no lock of its own.
#include "note_store.hpp"

#include <skillhost/skill.hpp>

#include <algorithm>
#include <string>

namespace {

using skillhost::Call;
using skillhost::Json;
using skillhost::SkillError;

bool is_blank(const std::string& text) {
    return std::all_of(text.begin(), text.end(), [](unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

Json note_add(const Call& call, const Json& args) {
    const std::string& text = args["text"].as_string();
    if (is_blank(text))
        throw SkillError("NOTE_EMPTY", "the note is empty; pass some text in 'text'",
                         Json::object({{"length", static_cast<std::int64_t>(text.size())}}));

    notes::NoteStore store{std::string(call.data_dir())};
    std::vector<notes::Note> all = store.load();
    notes::Note note;
    note.id = all.empty() ? 1 : all.back().id + 1;
    note.text = text;
    if (!args["tags"].is_null())
        for (const Json& tag : args["tags"].as_array()) note.tags.push_back(tag.as_string());
    all.push_back(note);
    store.save(all);
    call.log(skillhost::LogLevel::debug, "note " + std::to_string(note.id) + " added");
    return Json::object({{"id", note.id}, {"count", static_cast<std::int64_t>(all.size())}});
}

Json note_list(const Call& call, const Json& args) {
    notes::NoteStore store{std::string(call.data_dir())};
    std::vector<notes::Note> all = store.load();
    const std::string tag = args.string_or("tag", "");
    const std::int64_t limit = args.int_or("limit", 20);

    Json listed = Json::array();
    std::int64_t total = 0;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        if (!tag.empty() && std::find(it->tags.begin(), it->tags.end(), tag) == it->tags.end()) continue;
        ++total;
        if (static_cast<std::int64_t>(listed.size()) >= limit) continue;
        Json tags = Json::array();
        for (const auto& t : it->tags) tags.push_back(t);
        listed.push_back(Json::object({{"id", it->id}, {"text", it->text}, {"tags", tags}}));
    }
    return Json::object({{"notes", listed}, {"total", total}});
}

}  // namespace

// Name and version come from notes_cpp.yaml: skillhost_add_plugin() defines them.
SKILLHOST_PLUGIN(SKILLHOST_PLUGIN_NAME, SKILLHOST_PLUGIN_VERSION, SKILLHOST_SKILL("note_add", note_add),
                 SKILLHOST_SKILL("note_list", note_list))
