// libFuzzer target: skill arguments (JSON from a client, an MCP host or the model) validated
// against manifest input schemas that use every supported keyword, defaults applied.
#include "exec/argument_validation.hpp"
#include "manifest/manifest.hpp"

#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string_view>

namespace {

constexpr std::string_view kManifest = R"yaml(
name: fuzz
version: "1.0.0"
description: Schemas for the argument fuzzer.
library: libfuzz.so
abi_version: "1.0"
skills:
  - id: everything
    title: Every schema keyword
    description: Inputs that use every keyword the schema subset supports.
    category: testing
    inputs:
      type: object
      properties:
        text: {type: string, description: Text, pattern: "^[a-z0-9 ]{0,40}$"}
        count: {type: integer, minimum: 1, maximum: 100, default: 10}
        ratio: {type: number, minimum: 0, maximum: 1}
        flag: {type: boolean, default: false}
        mode: {type: string, enum: [fast, slow, "a b"]}
        tags: {type: array, items: {type: string, pattern: "^(x|y)+z?$"}}
        nested:
          type: object
          properties:
            name: {type: string}
            depth: {type: integer, minimum: 0}
          required: [name]
      required: [text]
    risk: low
    cost: free
    annotations: {read_only: true}
  - id: empty
    title: No inputs
    description: A skill without inputs.
    category: testing
    inputs: {type: object, properties: {}}
    risk: low
    cost: free
    annotations: {read_only: true}
)yaml";

const skillhost::manifest::Manifest& manifest() {
    static const skillhost::manifest::Manifest parsed = [] {
        auto m = skillhost::manifest::parse_manifest(kManifest, "fuzz.yaml");
        if (!m) {
            std::fprintf(stderr, "fuzz_arguments: the built-in manifest does not parse: %s\n",
                         m.error().message.c_str());
            std::abort();
        }
        return m.value();
    }();
    return parsed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    boost::system::error_code ec;
    const auto args = boost::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), ec);
    if (ec) return 0;
    for (const auto& skill : manifest().skills) {
        auto prepared = skillhost::exec::prepare_arguments(skill.id, skill.inputs, args);
        if (!prepared) (void)prepared.error().to_json();
    }
    return 0;
}
