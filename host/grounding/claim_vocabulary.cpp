// The words and dates the grounding check knows: month and weekday names, number words, the common
// words answers capitalise without naming anything, a crude stem, and civil-date arithmetic.
#include "grounding/claim_vocabulary.hpp"

#include <algorithm>
#include <array>

namespace skillhost::grounding {

int month_number(std::string_view w) {
    static constexpr std::array<std::string_view, 12> full = {"january",   "february", "march",    "april",
                                                              "may",       "june",     "july",     "august",
                                                              "september", "october",  "november", "december"};
    for (std::size_t i = 0; i < full.size(); ++i) {
        if (w == full[i]) return static_cast<int>(i) + 1;
        if (w.size() == 3 && full[i].starts_with(w)) return static_cast<int>(i) + 1;
    }
    if (w == "sept") return 9;
    return 0;
}

int weekday_number(std::string_view w) {
    static constexpr std::array<std::string_view, 7> full = {"sunday",   "monday", "tuesday", "wednesday",
                                                             "thursday", "friday", "saturday"};
    for (std::size_t i = 0; i < full.size(); ++i) {
        if (w == full[i] || (w.size() == 3 && full[i].starts_with(w))) return static_cast<int>(i);
    }
    if (w == "tues" || w == "thur" || w == "thurs") return w == "tues" ? 2 : 4;
    return -1;
}

int number_word(std::string_view w) {
    static constexpr std::array<std::string_view, 20> units = {
        "zero", "one",    "two",    "three",    "four",     "five",    "six",     "seven",     "eight",    "nine",
        "ten",  "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
    static constexpr std::array<std::string_view, 8> tens = {"twenty", "thirty",  "forty",  "fifty",
                                                             "sixty",  "seventy", "eighty", "ninety"};
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (w == units[i]) return static_cast<int>(i);
    }
    for (std::size_t i = 0; i < tens.size(); ++i) {
        if (w == tens[i]) return static_cast<int>(i + 2) * 10;
    }
    if (w == "hundred") return 100;
    if (w == "thousand") return 1000;
    if (w == "dozen") return 12;
    return -1;
}

int ordinal_word(std::string_view w) {
    static constexpr std::array<std::string_view, 18> words = {
        "third",     "fourth",    "fifth",       "sixth",      "seventh",    "eighth",
        "ninth",     "tenth",     "eleventh",    "twelfth",    "thirteenth", "fourteenth",
        "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"};
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (w == words[i]) return static_cast<int>(i) + 3;
    }
    return -1;
}

bool is_common_word(std::string_view w) {
    // Sorted; binary search.
    static constexpr std::string_view words[] = {
        "a", "about", "above", "according", "actually", "additionally", "after", "afterwards", "again", "ago", "ahead",
        "alas", "all", "also", "although", "always", "am", "an", "and", "another", "any", "anything", "are", "around",
        "as", "at", "available", "based", "be", "because", "been", "before", "being", "below", "best", "both", "busy",
        "but", "by", "can", "cheers", "check", "clear", "complete", "completed", "consider", "could", "count",
        "currently", "date", "day", "days", "details", "did", "do", "does", "done", "dont", "due", "during", "each",
        "either", "else", "empty", "end", "entries", "entry", "even", "event", "events", "every", "everything", "fine",
        "file", "files", "finally", "first", "for", "found", "friendly", "from", "fyi", "good", "great", "had", "happy",
        "has", "have", "having", "he", "hello", "her", "here", "heres", "hey", "hi", "high", "his", "hope", "how",
        "however", "i", "id", "if", "im", "important", "in", "info", "instead", "is", "it", "item", "items", "its",
        "ive", "just", "keep", "kind", "last", "later", "lastly", "let", "lets", "like", "list", "looking", "looks",
        "low", "luckily", "main", "many", "may", "maybe", "me", "medium", "meanwhile", "memories", "memory", "might",
        "more", "moreover", "most", "much", "must", "my", "na", "need", "needs", "new", "next", "nice", "no", "none",
        "nor", "not", "note", "notes", "nothing", "now", "of", "off", "ok", "okay", "on", "once", "one", "only", "open",
        "or", "other", "our", "out", "over", "overall", "overdue", "overview", "pending", "perhaps", "please", "plus",
        "pm", "priority", "ps", "quick", "ready", "recent", "recently", "remaining", "remember", "reminder", "result",
        "results", "right", "see", "she", "should", "since", "so", "some", "soon", "sorry", "start", "status", "still",
        "sure", "summary", "tag", "tags", "task", "tasks", "than", "thanks", "that", "thats", "the", "their", "them",
        "then", "there", "theres", "these", "they", "things", "this", "those", "though", "time", "tip", "to", "today",
        "todo", "tomorrow", "tonight", "too", "top", "total", "unfortunately", "until", "up", "upcoming", "urgent",
        "us", "use", "very", "was", "we", "week", "weekend", "well", "were", "what", "whats", "when", "where", "which",
        "while", "who", "why", "will", "with", "within", "without", "would", "yes", "yesterday", "yet", "you", "youll",
        "your", "youre", "yours", "youve", "asap", "utc", "gmt", "n", "a.m", "p.m", "ai", "also", "anyway", "bear",
        "good", "heads", "great", "just", "looks", "note", "okay", "this", "that", "alright", "answer", "answers",
        "data", "observation", "observations", "tool", "tools", "model", "unable", "cannot", "could", "couldnt", "isnt",
        "arent", "wasnt", "doesnt", "didnt", "wont", "s", "t", "ll", "re", "ve", "d", "m", "ok", "regarding", "re",
        "further", "furthermore", "specifically", "certainly", "absolutely", "definitely", "indeed", "otherwise",
        "unless", "whether", "whatever", "whenever", "wherever", "whoever", "own", "same", "such", "few", "several",
        "various", "enough", "lot", "lots", "week's", "weeks", "month", "months", "year", "years", "hour", "hours",
        "minute", "minutes", "morning", "afternoon", "evening", "night", "todays", "tomorrows", "closing", "final",
        "finished", "in_progress", "progress", "cancelled", "canceled", "archived", "active", "inactive", "general",
        // Verbs and adverbs answers start sentences with.
        "add", "aim", "ask", "avoid", "begin", "book", "bring", "call", "choose", "confirm", "continue", "create",
        "decide", "double", "email", "enjoy", "expect", "find", "finish", "focus", "follow", "get", "give", "go",
        "handle", "head", "hold", "look", "make", "mark", "meet", "move", "nothing", "order", "pick", "plan", "prepare",
        "prioritise", "prioritize", "put", "reach", "read", "reply", "renew", "review", "schedule", "send", "set",
        "share", "sound", "sounds", "spend", "stay", "take", "tackle", "tell", "try", "update", "wrap", "write",
        "apart", "altogether", "besides", "briefly", "clearly", "currently", "especially", "essentially", "fortunately",
        "generally", "hopefully", "importantly", "interestingly", "mostly", "naturally", "notably", "obviously",
        "personally", "possibly", "probably", "really", "similarly", "simply", "sadly", "surprisingly", "together",
        "typically", "usually", "yours", "welcome", "sounds", "looking", "seems", "nope", "yep", "wow", "oh", "ah",
        "hmm", "well", "congratulations", "congrats", "great", "awesome", "perfect", "excellent", "unclear", "unknown",
        "missing", "nobody", "someone", "somebody", "everyone", "everybody", "anyone", "anybody", "something",
        "otherwise", "done", "whoops",
        // The first halves of contractions ("don't" is "don" + "t").
        "don", "won", "isn", "aren", "wasn", "weren", "doesn", "didn", "couldn", "shouldn", "wouldn", "haven", "hasn",
        "hadn", "let", "here", "there", "ain",
        // Words of the host's own answer templates (the built-in model's renderings).
        "contents", "content", "entries", "steps", "step", "failed", "suggestions", "truncated", "returned"};
    static const std::vector<std::string_view> sorted = [] {
        std::vector<std::string_view> v(std::begin(words), std::end(words));
        std::sort(v.begin(), v.end());
        return v;
    }();
    return std::binary_search(sorted.begin(), sorted.end(), w);
}

std::string stem(std::string_view word) {
    std::string_view w = word;
    if (w.size() > 5 && w.ends_with("ing")) {
        w.remove_suffix(3);
    } else if (w.size() > 4 && (w.ends_with("ed") || w.ends_with("es"))) {
        w.remove_suffix(2);
    } else if (w.size() > 3 && w.back() == 's') {
        w.remove_suffix(1);
    }
    if (w.size() > 3 && w.back() == 'e') w.remove_suffix(1);
    std::size_t cut = std::min<std::size_t>(4, w.size());
    // Never cut inside a UTF-8 sequence: continuation bytes are 10xxxxxx.
    while (cut < w.size() && (static_cast<unsigned char>(w[cut]) & 0xC0) == 0x80) ++cut;
    return std::string(w.substr(0, cut));
}

std::int64_t days_from_civil(int year, int month, int day) {
    // Howard Hinnant's algorithm.
    year -= month <= 2 ? 1 : 0;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(year - era * 400);
    const unsigned doy =
        (153 * static_cast<unsigned>(month + (month > 2 ? -3 : 9)) + 2) / 5 + static_cast<unsigned>(day) - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

int weekday_of(int year, int month, int day) {
    // 1970-01-01 was a Thursday.
    return static_cast<int>(((days_from_civil(year, month, day) + 4) % 7 + 7) % 7);
}

}  // namespace skillhost::grounding
