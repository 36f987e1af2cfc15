#include "upstream/sse_parser.hpp"

namespace skillhost::upstream {

bool SseParser::feed(std::string_view piece) {
    for (const char c : piece) {
        if (oversized_) return false;
        if (c == '\n' && after_cr_) {
            after_cr_ = false;
            continue;
        }
        after_cr_ = c == '\r';
        if (c == '\r' || c == '\n') {
            on_line(line_);
            line_.clear();
            continue;
        }
        if (line_.size() + data_.size() >= max_event_bytes_) {
            oversized_ = true;
            line_.clear();
            line_.shrink_to_fit();
            data_.clear();
            data_.shrink_to_fit();
            return false;
        }
        line_ += c;
    }
    return !oversized_;
}

void SseParser::on_line(std::string_view line) {
    if (line.empty()) return dispatch();
    if (line.front() == ':') return;  // a comment (keep-alive)
    const std::size_t colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
        if (has_data_) data_ += '\n';
        data_.append(value);
        has_data_ = true;
    } else if (field == "event") {
        event_.assign(value);
    } else if (field == "id") {
        if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value.substr(0, 1024));
    } else if (field == "retry") {
        if (!value.empty() && value.size() <= 9 && value.find_first_not_of("0123456789") == std::string_view::npos)
            retry_ms_ = std::stoull(std::string(value));
    }
}

void SseParser::dispatch() {
    if (has_data_) {
        SseEvent event{last_event_id_, event_.empty() ? std::string("message") : event_, std::move(data_)};
        on_event_(std::move(event));
    }
    data_.clear();
    has_data_ = false;
    event_.clear();
}

}  // namespace skillhost::upstream
