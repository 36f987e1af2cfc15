#include "memory_file_import.hpp"

#include "../common/file_import.hpp"
#include "memory_store.hpp"

#include <algorithm>

namespace skillhost_builtin::memory {

using skillhost::Json;

namespace {

// The old file had no size limit; a record has. A memory too large for one keeps the start of its
// text and says where the whole text is. Returns whether it was cut.
bool fit_in_a_record(Memory& m) {
    const std::size_t size = memory_value(m).dump().size();
    if (size <= kMaxImportedValueBytes) return false;
    // JSON escapes can make the stored text longer than the text: cut by the excess, then halve
    // until it fits (at most 64 times for any size).
    m.text = cut_utf8(m.text, m.text.size() - std::min(m.text.size(), size - kMaxImportedValueBytes));
    for (int step = 0; step < 64 && memory_value(m).dump().size() > kMaxImportedValueBytes; ++step)
        m.text = cut_utf8(m.text, m.text.size() / 2);
    m.text += " [cut when imported: the whole text is in memory.db.migrated]";  // within the 4 KiB spare
    return true;
}

ImportedFile read_memories(OldFile& file) {
    ImportedFile out;
    if (!file.has_table("memories")) return out;
    Statement stmt = file.prepare("SELECT id, text, kind, tags, occurred_at, created_at FROM memories ORDER BY id");
    while (stmt.step()) {
        Memory m;
        m.id = stmt.int64(0);
        m.text = stmt.text(1);
        m.kind = stmt.text(2);
        m.tags = split_unit_separated(stmt.text(3));
        m.occurred_at = stmt.int64(4);
        m.created_at = stmt.int64(5);
        out.last_id = std::max(out.last_id, m.id);
        if (fit_in_a_record(m)) out.cut.push_back(m.id);
        out.records.push_back({m.id, memory_value(m)});
    }
    out.last_id = std::max(out.last_id, file.sequence_of("memories"));
    return out;
}

}  // namespace

void import_memory_file_once(const skillhost::Call& call, const skillhost::Storage& storage) {
    static const FileImport import{"memory.db", "memories", "memory", read_memories, [](const Json& value) {
                                       // Memories never change once captured: when and what.
                                       return std::to_string(value.int_or("created_at", 0)) + "\n" +
                                              value.string_or("text", "");
                                   }};
    import_file_once(call, storage, import);
}

}  // namespace skillhost_builtin::memory
