// The notes of one user: a JSON file in the plugin's private data directory for that user.
#pragma once

#include <skillhost/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace notes {

struct Note {
    std::int64_t id = 0;
    std::string text;
    std::vector<std::string> tags;
};

class NoteStore {
public:
    // `data_dir` is Call::data_dir(): it exists and belongs to this plugin and this user.
    explicit NoteStore(std::filesystem::path data_dir);

    // Reads every note (oldest first); no file yet means no notes. Throws
    // skillhost::SkillError("NOTES_CORRUPT") when the file cannot be read as notes.
    std::vector<Note> load() const;
    // Replaces the file atomically: write a temporary file beside it, then rename over it, so a
    // crash mid-write never leaves half a file.
    void save(const std::vector<Note>& notes) const;

    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

}  // namespace notes
