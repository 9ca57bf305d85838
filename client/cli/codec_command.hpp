// `objwire encode IN.jsonl -o OUT` and `objwire decode IN... -o OUT.jsonl`: JSON lines to and
// from objwire's binary format, offline. The binary file is a sequence of journal blocks
// exactly as objwired stores them (docs/JOURNAL.md), so `decode` also reads the daemon's
// segment files (journal-*.owj) directly, and decode(encode(x)) gives x back for JSON lines
// that `send` accepts (in the canonical form objwire itself writes).
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_encode_command(CLI::App& app);
subcommand add_decode_command(CLI::App& app);

}  // namespace objwire::client
