// objwired's offline journal commands (docs/JOURNAL.md 6): print, verify and repair a data
// directory's journal. Each returns the process exit status and says why on stderr:
// 0 all is well, 1 the journal cannot be read (no directory, no segments, a read error,
// offsets running backwards, a repair that failed), 2 offsets were lost (gaps; the rest
// was printed or checked).
#pragma once

#include <cstdint>
#include <string>

#include "config/settings.hpp"

namespace objwire::daemon {

// JSON lines on stdout from offset `from`. Never takes the directory's lock: works while
// objwired runs (what is whole is printed).
int dump_journal(const std::string& data_dir, std::uint64_t from);
// Every block of every segment verified (checksums, offsets), gaps listed, the sync
// checkpoint compared with the end. Read-only, works while objwired runs.
int verify_journal(const std::string& data_dir);
// Opens the journal with repair allowed (taking the lock: refused while objwired runs) and
// closes it: a loss of synced data is accepted, its cut bytes kept aside, the lost offsets
// recorded as a gap.
int repair_journal(const config::daemon_settings& settings);

}  // namespace objwire::daemon
