#include "base/yaml_root_guard.hpp"

namespace skillhost {
namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

std::size_t skip_blanks(std::string_view line, std::size_t at) {
    while (at < line.size() && is_blank(line[at])) ++at;
    return at;
}

// "---" or "..." at column 1, alone or followed by a blank: a document boundary.
bool is_document_marker(std::string_view line) {
    if (line.size() < 3 || (line.substr(0, 3) != "---" && line.substr(0, 3) != "...")) return false;
    return line.size() == 3 || is_blank(line[3]);
}

}  // namespace

// Brackets opened minus closed on `line`, outside quotes and comments: flow collections span lines.
static int flow_depth_change(std::string_view line) {
    int change = 0;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            if (quote == '"' && c == '\\') {
                ++i;
            } else if (c == quote) {
                quote = 0;
            }
            continue;
        }
        if (c == '#' && (i == 0 || is_blank(line[i - 1]))) break;
        if (c == '"' || c == '\'') quote = c;
        if (c == '[' || c == '{') ++change;
        if (c == ']' || c == '}') --change;
    }
    return change;
}

std::optional<YamlRootProblem> find_unsafe_yaml_root(std::string_view text) {
    bool expect_root = true;  // the next content starts a document's root node
    int flow_depth = 0;       // open [ and { (a ',' may begin a line only inside them)
    std::size_t line_number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        ++line_number;
        start = end + 1;

        std::size_t at = 0;
        if (is_document_marker(line)) {
            expect_root = true;
            flow_depth = 0;
            at = 3;
        }
        at = skip_blanks(line, at);
        // A line that starts with ',' outside a flow collection is never valid YAML, and some of them
        // (after a dedent, or as a document's first node) are what yaml-cpp never returns from.
        if (flow_depth <= 0 && at < line.size() && line[at] == ',') {
            return YamlRootProblem{line_number, at + 1,
                                   "a line cannot start with ',' outside [...] or {...}; remove the ',' or quote "
                                   "the text"};
        }
        flow_depth += flow_depth_change(line.substr(at));
        if (!expect_root || (!line.empty() && line[0] == '%')) continue;
        // Node properties before the root: anchors (&a) and tags (!t).
        while (at < line.size() && (line[at] == '&' || line[at] == '!')) {
            while (at < line.size() && !is_blank(line[at])) ++at;
            at = skip_blanks(line, at);
        }
        if (at >= line.size() || line[at] == '#') continue;  // nothing yet: the root starts later
        const char first = line[at];
        if (first == ',') {
            return YamlRootProblem{line_number, at + 1,
                                   "a YAML document cannot start with ','; remove it (a manifest starts with "
                                   "keys such as name:)"};
        }
        if (first == '|' || first == '>') {
            return YamlRootProblem{line_number, at + 1,
                                   "the document is a block scalar ('" + std::string(1, first) +
                                       "'), not a mapping of keys; start the file with keys such as name:"};
        }
        expect_root = false;
    }
    return std::nullopt;
}

}  // namespace skillhost
