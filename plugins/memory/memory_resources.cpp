// Memories as resources. Each user's memories are kept apart in the host's storage, so a listing or
// a read only ever sees the calling user's own; the host shows them only to users who may call
// memory_recent (the governing skill), as it does for every plugin's resources.
#include "memory_resources.hpp"

#include "memory_store.hpp"

#include <cstdint>
#include <string>

namespace skillhost_builtin::memory {

using skillhost::Json;
using skillhost::SkillError;

namespace {

constexpr std::string_view kPrefix = "memory://";
// The newest memories listed: a listing is for picking one, and older ones are found with
// memory_search or read by id.
constexpr std::int64_t kMaxListedMemories = 200;
// Titles are the memory's first characters; the full text is in the read.
constexpr std::size_t kTitleBytes = 80;
// Ids are SQLite rowids; 18 digits always fit in an int64, and no real id is longer.
constexpr std::size_t kMaxIdDigits = 18;

[[noreturn]] void not_found(std::string_view uri, const std::string& why) {
    throw SkillError("RESOURCE_NOT_FOUND", "no memory '" + std::string(uri) + "': " + why,
                     Json::object({{"uri", std::string(uri)}}));
}

std::string uri_of(std::int64_t id) {
    return std::string(kPrefix) + std::to_string(id);
}

// The first kTitleBytes bytes of `text`, cut at a character boundary, with "..." when cut.
std::string title_of(const std::string& text) {
    if (text.size() <= kTitleBytes) return text;
    std::size_t end = kTitleBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end) + "...";
}

// The id of memory://<digits>; not found for anything else.
std::int64_t id_of(std::string_view uri) {
    if (uri.substr(0, kPrefix.size()) != kPrefix) not_found(uri, "it is not a memory:// URI");
    const std::string_view digits = uri.substr(kPrefix.size());
    if (digits.empty() || digits.size() > kMaxIdDigits)
        not_found(uri, "memory URIs are memory://<id>, the id a number from memory_recent or memory_search");
    std::int64_t id = 0;
    for (char c : digits) {
        if (c < '0' || c > '9')
            not_found(uri, "memory URIs are memory://<id>, the id a number from memory_recent or memory_search");
        id = id * 10 + (c - '0');
    }
    return id;
}

}  // namespace

Json list_memory_resources(const skillhost::Call& call) {
    const Clock clock = clock_from_args(Json::object());
    MemoryFilter filter;
    filter.limit = kMaxListedMemories;
    MemoryStore store(call);
    Json resources = Json::array();
    for (const Memory& m : store.recent(filter)) {
        const Json shown = m.to_json(clock);
        resources.push_back(Json::object({{"uri", uri_of(m.id)},
                                          {"name", "memory-" + std::to_string(m.id)},
                                          {"title", title_of(m.text)},
                                          {"description", m.kind + " of " + shown["timestamp"].as_string()},
                                          {"mimeType", "application/json"}}));
    }
    return Json::object({{"resources", resources}});
}

Json memory_resource_templates(const skillhost::Call&) {
    return Json::object(
        {{"resourceTemplates", Json::array({Json::object({{"uriTemplate", std::string(kPrefix) + "{id}"},
                                                          {"name", "memory"},
                                                          {"title", "A memory by id"},
                                                          {"description",
                                                           "One of your memories, by the id memory_recent and "
                                                           "memory_search show: its text, kind, tags and time."},
                                                          {"mimeType", "application/json"}})})}});
}

Json read_memory_resource(const skillhost::Call& call, std::string_view uri) {
    const std::int64_t id = id_of(uri);
    MemoryStore store(call);
    const auto memory = store.find(id);
    if (!memory) not_found(uri, "you have no memory with id " + std::to_string(id));
    const Clock clock = clock_from_args(Json::object());
    Json content = Json::object(
        {{"uri", std::string(uri)}, {"mimeType", "application/json"}, {"text", memory->to_json(clock).dump()}});
    return Json::object({{"contents", Json::array({content})}});
}

}  // namespace skillhost_builtin::memory
