// Internal to objwire::config: a TOML syntax error in objwire's words. toml++ says what its
// parser expected ("Error while parsing floating-point: expected value-terminator, saw 'o'"
// for `level = info`); a user needs the key, what is wrong and the line to write instead.
// Works on the text and the parser's place and description only (no toml++, no I/O), so
// every rule is unit-tested on the mistake it explains.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace objwire::config::detail {

struct explained_error {
    std::uint32_t line = 0;  // 1-based
    std::uint32_t column = 0;
    std::string message;  // without the place: "'server.log_level' = info is not a TOML value..."
};

// The common mistakes - an unquoted string, a value with a unit but no quotes, ':' for '=',
// a key set twice, a table written twice, an unclosed string, array or header, a backslash in
// a Windows path, True/yes for true, 1,000 - explained with the fix; any other error with
// its full key when the line has one. `line` and `column` are the parser's (1-based).
explained_error explain_syntax_error(std::string_view text, std::uint32_t line,
                                     std::uint32_t column, std::string_view description);

}  // namespace objwire::config::detail
