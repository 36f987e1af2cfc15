// The web console's files as the daemon serves them: embedded in the binary at build time
// (console_embed.cmake), each with its content type and a content hash. The page refers to the
// other files by hashed paths (/console/<hash>/app.js), so they can be cached for good: a new
// build changes the hash and so the path.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::server {

// One file as the build step embeds it (console_files.cpp, generated).
struct EmbeddedFile {
    const char* name;
    const unsigned char* data;
    std::size_t size;
};
extern const EmbeddedFile kConsoleFiles[];
extern const std::size_t kConsoleFileCount;

struct ConsoleAsset {
    std::string name;          // "app.js"
    std::string content_type;  // "text/javascript; charset=utf-8"
    std::string body;
    std::string hash;  // 16 hex digits of the body's FNV-1a; also the ETag (quoted)
};

class ConsoleAssets {
public:
    // The embedded files; in index.html every "{{asset:NAME}}" becomes NAME's hashed path.
    ConsoleAssets();
    explicit ConsoleAssets(const std::vector<EmbeddedFile>& files);

    const ConsoleAsset& page() const { return assets_.front(); }  // index.html
    // The file NAME whose hash is HASH; null for any other pair (an old or made-up path).
    const ConsoleAsset* find(std::string_view hash, std::string_view name) const;
    const std::vector<ConsoleAsset>& all() const { return assets_; }

    static std::string path_of(const ConsoleAsset& asset) { return "/console/" + asset.hash + "/" + asset.name; }

private:
    std::vector<ConsoleAsset> assets_;  // index.html first
};

}  // namespace skillhost::server
