// The command-line parser's (CLI11's) errors said in objwire's own style: "objwire read: ..."
// with the flag or command the user most likely meant, the conflicting pair named, never the
// parser's wording or its type limits.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace objwire::client {

// The message for a parse error of `app` (the top-level app, after its parse threw), without
// the trailing newline. Not for CLI::Success (--help, --version).
std::string parse_error_text(const CLI::ParseError& e, const CLI::App& app);

// A flag's check that a number is 1 or more ("--count: must be 1 or more, not 0"), in place
// of CLI::PositiveNumber, whose message prints the range up to DBL_MAX.
extern const CLI::Validator one_or_more;

}  // namespace objwire::client
