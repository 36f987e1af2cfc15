#include "note_store.hpp"

#include <skillhost/skill.hpp>

#include <fstream>
#include <sstream>
#include <system_error>

namespace notes {

using skillhost::Json;
using skillhost::SkillError;

namespace {

[[noreturn]] void corrupt(const std::filesystem::path& file, const std::string& why) {
    throw SkillError("NOTES_CORRUPT",
                     "the notes file " + file.string() + " is not valid (" + why + "); fix it or move it aside",
                     Json::object({{"file", file.string()}, {"reason", why}}));
}

}  // namespace

NoteStore::NoteStore(std::filesystem::path data_dir) : file_(std::move(data_dir) / "notes.json") {}

std::vector<Note> NoteStore::load() const {
    std::ifstream in(file_, std::ios::binary);
    if (!in) return {};
    std::stringstream text;
    text << in.rdbuf();
    std::vector<Note> notes;
    try {
        Json doc = Json::parse(text.str());
        for (const Json& item : doc["notes"].as_array()) {
            Note note;
            note.id = item["id"].as_int();
            note.text = item["text"].as_string();
            for (const Json& tag : item["tags"].as_array()) note.tags.push_back(tag.as_string());
            notes.push_back(std::move(note));
        }
    } catch (const skillhost::JsonError& e) {
        corrupt(file_, e.what());
    }
    return notes;
}

void NoteStore::save(const std::vector<Note>& notes) const {
    Json list = Json::array();
    for (const Note& note : notes) {
        Json tags = Json::array();
        for (const auto& tag : note.tags) tags.push_back(tag);
        list.push_back(Json::object({{"id", note.id}, {"text", note.text}, {"tags", tags}}));
    }
    std::string body = Json::object({{"notes", list}}).dump(2);

    std::filesystem::path temporary = file_;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << body << '\n';
        out.close();
        if (!out)
            throw SkillError("NOTES_WRITE_FAILED",
                             "could not write " + temporary.string() + "; check free space and permissions",
                             Json::object({{"file", temporary.string()}}));
    }
    std::error_code ec;
    std::filesystem::rename(temporary, file_, ec);
    if (ec)
        throw SkillError("NOTES_WRITE_FAILED",
                         "could not replace " + file_.string() + " (" + ec.message() + "); check permissions",
                         Json::object({{"file", file_.string()}}));
}

}  // namespace notes
