#include "generated_plugins.hpp"

#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

namespace skillhost::bench {

namespace fs = std::filesystem;

std::filesystem::path generate_plugins(const fs::path& dir, int count) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (int i = 0; i < count; ++i) {
        char number[16];
        std::snprintf(number, sizeof number, "%03d", i);
        const std::string name = std::string("bench_") + number;
        fs::copy_file(SKILLHOST_BENCH_PLUGIN_LIBRARY, dir / ("lib" + name + ".so"));
        std::ofstream manifest(dir / (name + ".yaml"));
        manifest << "name: " << name << "\n"
                 << "version: \"1.0.0\"\n"
                 << "description: Generated plugin " << number << " for the discovery benchmark.\n"
                 << "library: lib" << name << ".so\n"
                 << "abi_version: \"1.0\"\n"
                 << "skills:\n"
                 << "  - id: " << name << "_op\n"
                 << "    title: Operation " << number << "\n"
                 << "    description: Looks up items in collection " << number
                 << " that match a query and returns at most limit of them.\n"
                 << "    category: bench\n"
                 << "    inputs:\n"
                 << "      type: object\n"
                 << "      properties:\n"
                 << "        query: {type: string, description: Text the items must contain.}\n"
                 << "        limit: {type: integer, description: Most items to return., minimum: 1, maximum: 100, "
                    "default: 10}\n"
                 << "        order: {type: string, description: Sort order., enum: [newest, oldest], default: newest}\n"
                 << "      required: [query]\n"
                 << "    outputs:\n"
                 << "      type: object\n"
                 << "      properties:\n"
                 << "        items: {type: array, items: {type: string}, description: Matching items.}\n"
                 << "        total: {type: integer, description: How many matched in all.}\n"
                 << "    risk: low\n"
                 << "    cost: free\n"
                 << "    annotations: {read_only: true, idempotent: true}\n"
                 << "    error_hints:\n"
                 << "      NOT_FOUND: [Check the collection name.]\n"
                 << "    examples:\n"
                 << "      - description: Find reports\n"
                 << "        args: {query: report}\n";
        if (!manifest) throw std::runtime_error("cannot write manifest for " + name);
    }
    return dir;
}

ScratchDir::ScratchDir(const char* prefix) {
    std::random_device random;
    path_ = fs::temp_directory_path() / (std::string(prefix) + "-" + std::to_string(random()));
    fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

}  // namespace skillhost::bench
