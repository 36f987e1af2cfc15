#include "plugin/definition_pins.hpp"

#include <map>
#include <mutex>

namespace skillhost::plugin {
namespace {

class MemoryDefinitionPins final : public DefinitionPins {
public:
    Result<std::vector<PinVerdict>> check(std::string_view server, const std::vector<ListedDefinition>& listed,
                                          std::string_view) override {
        std::lock_guard lock(mutex_);
        auto [pins, first] = servers_.try_emplace(std::string(server));
        std::vector<PinVerdict> verdicts;
        for (const auto& definition : listed) {
            if (first) pins->second[definition.tool] = definition.hash;
            const auto pin = pins->second.find(definition.tool);
            PinVerdict verdict;
            verdict.tool = definition.tool;
            if (pin != pins->second.end()) verdict.pinned_hash = pin->second;
            verdict.callable = verdict.pinned_hash == definition.hash;
            verdicts.push_back(std::move(verdict));
        }
        return verdicts;
    }

private:
    std::mutex mutex_;
    std::map<std::string, std::map<std::string, std::string>, std::less<>> servers_;  // server -> tool -> hash
};

}  // namespace

std::shared_ptr<DefinitionPins> memory_definition_pins() {
    return std::make_shared<MemoryDefinitionPins>();
}

}  // namespace skillhost::plugin
