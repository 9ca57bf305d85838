// Named reader cursors (docs/PROTOCOL.md 1.2): for each name, the offset up to which a reader
// with that name has acknowledged writing the objects out. Kept in the data directory, in a
// `cursors` subdirectory the journal never looks at, one small file per name, replaced by
// write + fsync + rename + fsync of the directory, so a stored position survives kill -9 and
// power loss and a reader never finds a half-written one. Each file carries a CRC-32C of its
// offset, as journal blocks do, so a damaged one is reported (cursor_file_errc), never read as
// another position. One reader at a time holds a name.
//
// A reader's acks in the course of its stream are staged: held in memory and stored by
// flush(), which the journal's sync thread runs after each sync (journal::set_sync_rider), so
// they cost the reader no fsync and every cursor moved since the last sync shares one fsync
// of the directory. What must be durable at once (a reader's end, `cursor set`) is saved.
//
//   auto& store = cursor_store::for_data_dir(dir);
//   if (!store.claim("etl")) refuse("in use");
//   auto at = store.get("etl", ec);      // std::nullopt: no such cursor yet
//   store.stage("etl", 1200);             // an ack: stored with the journal's next sync
//   store.save("etl", 1300);              // the reader's last ack: stored now
//   store.release("etl");
#pragma once

#include <atomic>
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

    // The position of `name` (staged or stored); nullopt when there is none (or on an error,
    // in ec).
    std::optional<std::uint64_t> get(const std::string& name, std::error_code& ec) const;
    // Stores `name` at next_offset durably before returning (and drops what was staged).
    std::error_code save(const std::string& name, std::uint64_t next_offset);
    // `name` moves to next_offset at the next flush(); until then get() says so, and a newer
    // stage() replaces it.
    void stage(const std::string& name, std::uint64_t next_offset);
    // Stores `name`'s staged position, if any, before returning (a reader's end).
    std::error_code persist(const std::string& name);
    // Stores every staged position: each file written, fsynced and renamed, then one fsync of
    // the directory. Failures are logged (the reader's end stores its position again).
    void flush();
    // fsync calls made for cursor files and their directory, for the metrics.
    std::uint64_t fsyncs() const { return fsyncs_.load(); }
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
    // What the files hold, staged positions aside (positions() calls it under
    // positions_mutex_).
    std::optional<std::uint64_t> read_file(const std::string& name, std::error_code& ec) const;
    std::vector<cursor_entry> list_files(std::error_code& ec, std::string& damaged) const;
    // With files_mutex_ held: write, fsync, rename (no fsync of the directory).
    std::error_code replace_file(const std::string& name, std::uint64_t next_offset);
    std::error_code sync_dir();
    void note_position(const std::string& name, std::uint64_t next_offset);
    // Drops from staged_ each name still staged at the position stored.
    void unstage(const std::map<std::string, std::uint64_t>& stored);

    std::filesystem::path dir_;
    mutable std::mutex mutex_;
    std::set<std::string> in_use_;
    mutable std::mutex positions_mutex_;
    mutable bool positions_loaded_ = false;
    mutable std::map<std::string, cursor_position> positions_;
    std::map<std::string, std::uint64_t> staged_;  // under positions_mutex_
    std::uint64_t moves_ = 0;
    // Held while cursor files are written: a flush and a save of the same name never
    // interleave, so the newest position is the one left on disk.
    std::mutex files_mutex_;
    std::atomic<std::uint64_t> fsyncs_{0};
};

}  // namespace objwire::daemon

template <>
struct std::is_error_code_enum<objwire::daemon::cursor_file_errc> : std::true_type {};
