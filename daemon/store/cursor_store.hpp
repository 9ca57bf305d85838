// Named reader cursors (docs/PROTOCOL.md 1.2): for each name, the offset up to which a reader
// with that name has acknowledged writing the objects out. Kept in the data directory, in a
// `cursors` subdirectory the journal never looks at, one small file per name, replaced by
// write + fsync + rename + fsync of the directory, so a position survives kill -9 and power
// loss and a reader never finds a half-written one. Each file carries a CRC-32C of its offset,
// as journal blocks do, so a damaged one is reported (cursor_file_errc), never read as another
// position. One reader at a time holds a name.
//
//   auto& store = cursor_store::for_data_dir(dir);
//   if (!store.claim("etl")) refuse("in use");
//   auto at = store.get("etl", ec);      // std::nullopt: no such cursor yet
//   store.save("etl", 1200);              // after the reader's acknowledgement
//   store.release("etl");
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "daemon/telemetry/named_metrics.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {

// Why a cursor file cannot be read (beyond an errno).
enum class cursor_file_errc {
    bad_checksum = 1,  // the offset does not match its CRC-32C
    malformed,         // not a cursor file at all (cut, overwritten)
};
std::error_code make_error_code(cursor_file_errc e) noexcept;

class cursor_store {
  public:
    // The store of the daemon whose data directory is `data_dir`: one per directory in the
    // process, so that readers of one daemon share the in-use names.
    static cursor_store& for_data_dir(const std::filesystem::path& data_dir);

    explicit cursor_store(std::filesystem::path data_dir);

    // The stored position of `name`; nullopt when there is none (or on an error, in ec).
    std::optional<std::uint64_t> get(const std::string& name, std::error_code& ec) const;
    std::error_code save(const std::string& name, std::uint64_t next_offset);
    // `objwire cursor set`: moves `name` (or makes it) to next_offset, holding the name as a
    // reader would meanwhile. Refused, with nothing changed: sender_busy (proto_errc) while a
    // reader holds it, past_end when next_offset is beyond `durable_end` (no reader could
    // have acknowledged it).
    std::error_code set(const std::string& name, std::uint64_t next_offset,
                        std::uint64_t durable_end);
    // Deletes `name`; not_found (proto_errc) when there was none.
    std::error_code remove(const std::string& name);
    // Every stored cursor that can be read, by name; `damaged` names each one that cannot, and
    // why ("cursor 'etl': the cursor file is damaged ...; cursor ..."), empty when none.
    std::vector<cursor_entry> list(std::error_code& ec, std::string& damaged) const;

    // Every readable cursor's position and when it last moved, for the metrics: the files are
    // read at the first call, then save() and remove() keep the figures, so a scrape reads no
    // file. Cursors read from the files count as never moved (0).
    std::vector<cursor_position> positions() const;

    // A reader holds `name` while it reads: false when another does.
    bool claim(const std::string& name);
    void release(const std::string& name);
    bool in_use(const std::string& name) const;

    // <data_dir>/cursors, for messages.
    const std::filesystem::path& dir() const { return dir_; }

  private:
    std::filesystem::path file_of(const std::string& name) const { return dir_ / name; }

    std::filesystem::path dir_;
    mutable std::mutex mutex_;
    std::set<std::string> in_use_;
    mutable std::mutex positions_mutex_;
    mutable bool positions_loaded_ = false;
    mutable std::map<std::string, cursor_position> positions_;
    std::uint64_t moves_ = 0;
};

}  // namespace objwire::daemon

template <>
struct std::is_error_code_enum<objwire::daemon::cursor_file_errc> : std::true_type {};
