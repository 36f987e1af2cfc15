#include "server/console_assets.hpp"

#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace skillhost::server {

namespace {

std::string content_type_of(std::string_view name) {
    const auto dot = name.rfind('.');
    const std::string_view ext = dot == std::string_view::npos ? std::string_view{} : name.substr(dot + 1);
    if (ext == "html") return "text/html; charset=utf-8";
    if (ext == "js") return "text/javascript; charset=utf-8";
    if (ext == "css") return "text/css; charset=utf-8";
    if (ext == "svg") return "image/svg+xml";
    if (ext == "png") return "image/png";
    return "application/octet-stream";
}

// A content hash for cache busting and ETags (not for security: nothing trusts it).
std::string fnv1a_hex(std::string_view data) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : data) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

ConsoleAsset make_asset(const EmbeddedFile& file) {
    ConsoleAsset a;
    a.name = file.name;
    a.content_type = content_type_of(a.name);
    a.body.assign(reinterpret_cast<const char*>(file.data), file.size);
    a.hash = fnv1a_hex(a.body);
    return a;
}

}  // namespace

ConsoleAssets::ConsoleAssets()
    : ConsoleAssets(std::vector<EmbeddedFile>(kConsoleFiles, kConsoleFiles + kConsoleFileCount)) {}

ConsoleAssets::ConsoleAssets(const std::vector<EmbeddedFile>& files) {
    const EmbeddedFile* index = nullptr;
    for (const auto& f : files) {
        if (std::string_view(f.name) == "index.html")
            index = &f;
        else
            assets_.push_back(make_asset(f));
    }
    if (!index) throw std::logic_error("the console has no index.html (host/server/CMakeLists.txt, console_files)");
    ConsoleAsset page = make_asset(*index);
    // Placeholders are replaced in one forward pass: a replacement is never scanned again.
    std::string out;
    std::size_t pos = 0;
    while (true) {
        const auto open = page.body.find("{{asset:", pos);
        if (open == std::string::npos) break;
        const auto close = page.body.find("}}", open);
        if (close == std::string::npos) break;
        const std::string name = page.body.substr(open + 8, close - open - 8);
        out.append(page.body, pos, open - pos);
        bool found = false;
        for (const auto& a : assets_) {
            if (a.name == name) {
                out += path_of(a);
                found = true;
            }
        }
        if (!found) throw std::logic_error("index.html refers to " + name + ", which is not embedded");
        pos = close + 2;
    }
    out.append(page.body, pos);
    page.body = std::move(out);
    page.hash = fnv1a_hex(page.body);
    assets_.insert(assets_.begin(), std::move(page));
}

const ConsoleAsset* ConsoleAssets::find(std::string_view hash, std::string_view name) const {
    for (std::size_t i = 1; i < assets_.size(); ++i) {
        if (assets_[i].hash == hash && assets_[i].name == name) return &assets_[i];
    }
    return nullptr;
}

}  // namespace skillhost::server
