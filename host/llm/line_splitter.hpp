// Splits a byte stream that arrives in arbitrary pieces into lines (NDJSON, server-sent events).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace skillhost::llm {

class LineSplitter {
public:
    using LineHandler = std::function<void(std::string_view line)>;
    explicit LineSplitter(LineHandler on_line) : on_line_(std::move(on_line)) {}

    // Emits every complete line in `piece` (without "\n" or "\r\n"); keeps the rest for later.
    void feed(std::string_view piece) {
        pending_.append(piece);
        std::size_t start = 0;
        for (auto end = pending_.find('\n', start); end != std::string::npos; end = pending_.find('\n', start)) {
            std::string_view line(pending_.data() + start, end - start);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            on_line_(line);
            start = end + 1;
        }
        pending_.erase(0, start);
    }

    // Emits a last line that had no newline.
    void finish() {
        if (!pending_.empty()) {
            std::string last = std::move(pending_);
            pending_.clear();
            if (!last.empty() && last.back() == '\r') last.pop_back();
            on_line_(last);
        }
    }

private:
    LineHandler on_line_;
    std::string pending_;
};

}  // namespace skillhost::llm
