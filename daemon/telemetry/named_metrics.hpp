// The metrics labelled by a name a peer chooses - sender ids, cursor names - and the lag of
// readers. A peer can make up any number of names, so each labelled family keeps at most a
// fixed number of them (the most recently active) and folds the rest into one series labelled
// with the empty name: the label set, and the size of a scrape, stay bounded whatever peers do.
// No I/O: the session, the reader and the journal sink feed them, and the metrics text renders
// what they hold (docs/OPERATIONS.md, "Per sender, per cursor").
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace objwire::daemon {

// Sender ids and cursor names labelled one by one; the rest share the series named "".
inline constexpr std::size_t max_labelled_senders = 32;
inline constexpr std::size_t max_labelled_cursors = 32;
inline constexpr std::size_t max_labelled_readers = 32;

// What each sender id had stored: objects and bytes (counted when durable) and when it last
// stored any. Anonymous streams and ids beyond the cap count under the id "", which also
// takes over the counts of an id pushed out by a newer one, so the sum over all series stays
// the daemon's total. Thread-safe.
class sender_meter {
  public:
    struct row {
        std::string id;  // "": anonymous streams and ids beyond the cap
        std::uint64_t objects = 0;
        std::uint64_t bytes = 0;
        double last_seen_seconds = 0;  // Unix time of the last stored batch
    };

    explicit sender_meter(std::size_t cap = max_labelled_senders) : cap_(cap) {}

    void stored(const std::string& id, std::uint64_t objects, std::uint64_t bytes,
                double now_seconds);
    // The ids labelled now, by id, then the "" row when anything counted there.
    std::vector<row> rows() const;

  private:
    struct entry {
        std::uint64_t objects = 0;
        std::uint64_t bytes = 0;
        double last_seen = 0;
        std::uint64_t tick = 0;  // when it last stored, in stored() calls
    };
    static void add(entry& to, const entry& from);
    void evict_oldest();

    std::size_t cap_;
    mutable std::mutex mutex_;
    std::map<std::string, entry> ids_;
    entry other_;
    bool other_used_ = false;
    std::uint64_t tick_ = 0;
};

// A named cursor's stored position and when it last moved (larger: more recently).
struct cursor_position {
    std::string name;
    std::uint64_t next_offset = 0;
    std::uint64_t moved = 0;
};

struct cursor_lag {
    std::string name;  // "": the cursors beyond the cap, with the largest lag among them
    std::uint64_t lag = 0;
};

// Offsets from `position` to the journal's next offset; 0 for a position at or past it.
inline std::uint64_t lag_behind(std::uint64_t next_offset, std::uint64_t position) {
    return next_offset > position ? next_offset - position : 0;
}

// The lag of the `cap` most recently moved cursors behind `next_offset`, by name, then one row
// named "" with the worst lag of the others (none when there are no others).
std::vector<cursor_lag> cursor_lags(std::vector<cursor_position> cursors, std::uint64_t next_offset,
                                    std::size_t cap = max_labelled_cursors);

// Where each live journal reader stands (the next offset it will read), so the worst lag is a
// minimum over the readers open now, not a scan. Thread-safe.
class reader_positions {
  public:
    // `name` labels the reader's own lag (its peer's address); returns the reader's key.
    std::uint64_t add(std::uint64_t next_offset, std::string name = {});
    void move(std::uint64_t key, std::uint64_t next_offset);
    void remove(std::uint64_t key);
    // The position of the reader furthest behind; nothing while none is open.
    std::optional<std::uint64_t> slowest() const;
    // Each open reader by name, `moved` the order it opened in (larger: later), for
    // cursor_lags: the most recently opened are labelled, the others share the "" row.
    std::vector<cursor_position> positions() const;

  private:
    struct reader {
        std::string name;
        std::uint64_t at = 0;
    };
    mutable std::mutex mutex_;
    std::map<std::uint64_t, reader> at_;
    std::uint64_t next_key_ = 0;
};

// One reader's place in reader_positions while it lives.
class reader_position_mark {
  public:
    reader_position_mark(reader_positions& readers, std::uint64_t next_offset,
                         std::string name = {})
        : readers_(readers), key_(readers.add(next_offset, std::move(name))) {}
    ~reader_position_mark() { readers_.remove(key_); }
    reader_position_mark(const reader_position_mark&) = delete;
    reader_position_mark& operator=(const reader_position_mark&) = delete;
    void move(std::uint64_t next_offset) { readers_.move(key_, next_offset); }

  private:
    reader_positions& readers_;
    std::uint64_t key_;
};

}  // namespace objwire::daemon
