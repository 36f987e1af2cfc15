// How the CLI speaks: results on stdout, one clear error line (plus hints) on stderr.
#pragma once

#include "base/error.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace skillhost::cli {

// Exit codes: 0 success, 1 the operation failed (skill error, check failed), 2 usage or setup error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// "error: CODE: message" then "  hint: ..." lines, on stderr.
void print_error(const Error& error);
// {"error": {...}} on stdout, for --json.
void print_error_json(const Error& error);
// Pretty JSON on stdout.
void print_json(const boost::json::value& value);
// Reports a setup error in the selected format and returns kExitUsage.
int fail_setup(const Error& error, bool json);

// The exit code of a command whose operation failed with an error of `kind`: the one table the CLI
// derives it from. Every kind is kExitFailed today; kExitUsage says that the command could not
// start at all, which is where an error arose rather than its kind (fail_setup).
int exit_code_for(ErrorKind kind);
// Reports an operation's error in the selected format and returns exit_code_for(its kind).
int fail_operation(const Error& error, bool json);

}  // namespace skillhost::cli
