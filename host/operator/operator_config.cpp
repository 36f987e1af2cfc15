#include "operator/operator_config.hpp"
#include "operator/error_codes.hpp"

#include "base/guarded_yaml.hpp"
#include "base/config_problem.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

namespace skillhost::op {
namespace {

struct Reader {
    std::string file;
    std::vector<ConfigProblem> problems;

    void integer(const YAML::Node& node, const std::string& key, int low, int high, int& out) {
        try {
            const int value = node.as<int>();
            if (value < low || value > high) {
                problems.push_back(problem_at(
                    file, node, key, "must be between " + std::to_string(low) + " and " + std::to_string(high)));
                return;
            }
            out = value;
        } catch (const YAML::Exception&) {
            problems.push_back(problem_at(file, node, key, "expected a whole number"));
        }
    }

    void boolean(const YAML::Node& node, const std::string& key, bool& out) {
        try {
            out = node.as<bool>();
        } catch (const YAML::Exception&) {
            problems.push_back(problem_at(file, node, key, "expected true or false"));
        }
    }

    std::string text(const YAML::Node& node, const std::string& key) {
        if (!node.IsScalar()) {
            problems.push_back(problem_at(file, node, key, "expected a string"));
            return {};
        }
        return node.Scalar();
    }
};

void read_settings(const YAML::Node& root, const std::filesystem::path& file, Reader& reader, OperatorConfig& config);

}  // namespace

Result<OperatorConfig> parse_operator_config(std::string_view yaml_text, const std::filesystem::path& file) {
    OperatorConfig config;
    config.source = file.string();
    Reader reader{file.string(), {}};
    YAML::Node root;
    try {
        root = load_guarded_yaml(yaml_text);
    } catch (const YAML::Exception& e) {
        reader.problems.push_back(ConfigProblem{file.string(), e.mark.line + 1, e.mark.column + 1, "", e.msg});
        return config_error(errors::kOperatorConfigInvalid, reader.problems, "fix etc/operator.yaml");
    }
    if (!root || root.IsNull()) return config;
    if (!root.IsMap()) {
        reader.problems.push_back(problem_at(file.string(), root, "", "expected a mapping of operator settings"));
        return config_error(errors::kOperatorConfigInvalid, reader.problems, "fix etc/operator.yaml");
    }
    try {
        read_settings(root, file, reader, config);
    } catch (const YAML::Exception& e) {
        // Whatever shape the file has, it is refused with a place, never a crash.
        reader.problems.push_back(ConfigProblem{file.string(), e.mark.line + 1, e.mark.column + 1, "", e.msg});
    }
    if (!reader.problems.empty()) {
        return config_error(errors::kOperatorConfigInvalid, reader.problems, "fix etc/operator.yaml");
    }
    return config;
}

namespace {

void read_settings(const YAML::Node& root, const std::filesystem::path& file, Reader& reader, OperatorConfig& config) {
    static const std::set<std::string> known = {"max_steps",   "trim_to_last_n", "verbatim",      "grounding",
                                                "error_retry", "max_retries",    "critic",        "observation",
                                                "dump_dir",    "default_style",  "max_goal_chars"};
    for (const auto& item : root) {
        if (!item.first.IsScalar()) {
            reader.problems.push_back(problem_at(file.string(), item.first, "", "expected a setting name"));
            continue;
        }
        const std::string key = item.first.as<std::string>();
        const YAML::Node& value = item.second;
        if (!known.contains(key)) {
            reader.problems.push_back(
                problem_at(file.string(), item.first, key,
                           "unknown setting; known: critic, default_style, dump_dir, error_retry, "
                           "grounding, max_goal_chars, max_retries, max_steps, observation, trim_to_last_n, "
                           "verbatim"));
        } else if (key == "max_steps") {
            reader.integer(value, key, 1, 100, config.max_steps);
        } else if (key == "max_goal_chars") {
            reader.integer(value, key, 16, 1'000'000, config.max_goal_chars);
        } else if (key == "trim_to_last_n") {
            reader.integer(value, key, 1, 100, config.trim_to_last_n);
        } else if (key == "max_retries") {
            reader.integer(value, key, 0, 5, config.max_retries);
        } else if (key == "verbatim") {
            reader.boolean(value, key, config.verbatim);
        } else if (key == "grounding") {
            reader.boolean(value, key, config.grounding);
        } else if (key == "error_retry") {
            reader.boolean(value, key, config.error_retry);
        } else if (key == "critic") {
            reader.boolean(value, key, config.critic);
        } else if (key == "dump_dir") {
            config.dump_dir = reader.text(value, key);
            if (!config.dump_dir.empty() && config.dump_dir.is_relative()) {
                config.dump_dir = file.parent_path() / config.dump_dir;
            }
        } else if (key == "default_style") {
            const std::string style = reader.text(value, key);
            if (style == "default" || style == "strict" || style == "summary") {
                config.default_style = style;
            } else if (!style.empty()) {
                reader.problems.push_back(problem_at(file.string(), value, key, "expected default, strict or summary"));
            }
        } else if (key == "observation") {
            if (!value.IsMap()) {
                reader.problems.push_back(
                    problem_at(file.string(), value, key, "expected a mapping with mode and max_chars"));
                continue;
            }
            for (const auto& sub : value) {
                if (!sub.first.IsScalar()) {
                    reader.problems.push_back(problem_at(file.string(), sub.first, key, "expected a setting name"));
                    continue;
                }
                const std::string sub_key = sub.first.as<std::string>();
                const std::string field = "observation." + sub_key;
                if (sub_key == "mode") {
                    const auto mode = store::parse_observation_mode(reader.text(sub.second, field));
                    if (mode) {
                        config.observation_mode = *mode;
                    } else {
                        reader.problems.push_back(
                            problem_at(file.string(), sub.second, field, "expected narrative, structured or verbatim"));
                    }
                } else if (sub_key == "max_chars") {
                    int chars = static_cast<int>(config.observation_max_chars);
                    reader.integer(sub.second, field, 200, 1000000, chars);
                    config.observation_max_chars = static_cast<std::size_t>(chars);
                } else {
                    reader.problems.push_back(
                        problem_at(file.string(), sub.first, field, "unknown setting; known: mode, max_chars"));
                }
            }
        }
    }
}

}  // namespace

Result<OperatorConfig> load_operator_config(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) {
        if (!std::filesystem::exists(file)) return OperatorConfig{};
        Error error{
            errors::kOperatorConfigUnreadable, "cannot read " + file.string() + " — check its permissions", {}, {}};
        error.details["file"] = file.string();
        return error;
    }
    std::stringstream text;
    text << in.rdbuf();
    return parse_operator_config(text.str(), file);
}

}  // namespace skillhost::op
