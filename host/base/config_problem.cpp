#include "base/config_problem.hpp"

#include <boost/json/array.hpp>
#include <yaml-cpp/yaml.h>

namespace skillhost {

std::string ConfigProblem::to_string() const {
    std::string out = file;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0) out += ':' + std::to_string(column);
    }
    out += ": ";
    if (!field.empty()) out += field + ": ";
    out += message;
    return out;
}

ConfigProblem problem_at(const std::string& file, const YAML::Node& node, std::string field, std::string message) {
    ConfigProblem problem{file, 0, 0, std::move(field), std::move(message)};
    if (node.IsDefined()) {
        const YAML::Mark mark = node.Mark();
        if (!mark.is_null()) {
            problem.line = mark.line + 1;
            problem.column = mark.column + 1;
        }
    }
    return problem;
}

Error config_error(const ErrorCode& code, const std::vector<ConfigProblem>& problems, std::string_view what_to_do) {
    Error error{code, problems.empty() ? std::string("invalid configuration") : problems.front().to_string()};
    if (problems.size() > 1) {
        error.message +=
            " (and " + std::to_string(problems.size() - 1) + " more problem" + (problems.size() > 2 ? "s" : "") + ")";
    }
    error.message += "; ";
    error.message += what_to_do;
    boost::json::array list;
    for (const auto& p : problems) {
        boost::json::object item;
        item["file"] = p.file;
        item["line"] = p.line;
        item["column"] = p.column;
        item["field"] = p.field;
        item["message"] = p.message;
        list.push_back(std::move(item));
    }
    if (!problems.empty()) error.details["file"] = problems.front().file;
    error.details["problems"] = std::move(list);
    return error;
}

}  // namespace skillhost
