// The sparse start index of a journal (docs/JOURNAL.md, "The start index"): where a reader's
// start by offset, by time or by the last N objects of a sender is, without reading the
// journal. Blocks are grouped into spans of consecutive blocks of one segment (a span closes at
// span_blocks blocks, span_bytes bytes or the segment's end); each span keeps its place in its
// file, its offsets, its newest block time and, per sender id present, the objects it holds.
// A start is then a binary search here and a read of one or two spans' block headers.
// No I/O: the journal feeds it (appends, recovery, retention) under its own lock.
//
// Memory: one span record (span_record_bytes) per span and one sender record
// (sender_record_bytes) per sender id present in a span - at most one per block of the span -
// plus each sender id once.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace objwire::daemon {

// One stored block as the index takes it.
struct indexed_block {
    std::uint64_t segment_first = 0;  // first offset of the segment holding it
    std::uint64_t position = 0;       // its file position there
    std::uint64_t size = 0;           // bytes
    std::uint64_t first_offset = 0;
    std::uint32_t count = 0;  // objects
    std::uint64_t time_ms = 0;
    std::string_view sender_id;
};

// Where a walk of the journal can begin: a block's (or a span's first block's) place.
struct block_place {
    std::uint64_t segment_first = 0;
    std::uint64_t position = 0;
    std::uint64_t first_offset = 0;  // the block's first offset
    std::uint64_t end_offset = 0;    // a span's: the offset after its last block
    bool operator==(const block_place&) const = default;
};

// A sender's objects in one span, counted from the first the index took (rank).
struct sender_span {
    block_place span;
    std::uint64_t objects_before = 0;  // the sender's objects in earlier spans
    std::uint64_t objects = 0;         // in this span
};

class start_index {
  public:
    static constexpr std::uint64_t default_span_blocks = 256;
    static constexpr std::uint64_t default_span_bytes = 4ull << 20;
    static constexpr std::size_t span_record_bytes = 64;
    static constexpr std::size_t sender_record_bytes = 32;

    explicit start_index(std::uint64_t span_blocks = default_span_blocks,
                         std::uint64_t span_bytes = default_span_bytes)
        : span_blocks_(span_blocks), span_bytes_(span_bytes) {}

    // Blocks come in offset order; a block of a new segment closes the span.
    void add(const indexed_block& b);
    // Retention deleted the segments before `first_offset`: their spans go.
    void drop_before(std::uint64_t first_offset);
    void clear();

    // The span holding `offset` (the first after it if none does); nullopt past the last.
    std::optional<block_place> place_of(std::uint64_t offset) const;
    // The first span holding a block stamped at or after `since_ms`, among the spans starting
    // below `limit`: the first such block of the journal is in it (or past `limit`).
    std::optional<block_place> place_of_time(std::uint64_t since_ms, std::uint64_t limit) const;
    // The sender's last span starting below `limit` (it may hold blocks past `limit`).
    std::optional<sender_span> last_span_of(std::string_view sender, std::uint64_t limit) const;
    // The sender's span holding its object of rank `rank` (objects_before <= rank <
    // objects_before + objects), or its first span kept when `rank` is before it.
    std::optional<sender_span> span_of_rank(std::string_view sender, std::uint64_t rank) const;

    std::size_t spans() const { return spans_.size(); }
    // What the records take (span_record_bytes, sender_record_bytes, the ids).
    std::size_t memory_bytes() const;

  private:
    struct span {
        block_place place;
        std::uint64_t blocks = 0;
        std::uint64_t bytes = 0;
        std::uint64_t max_time_ms = 0;
        std::uint64_t time_prefix_max = 0;  // of every span up to this one: a sorted key
    };
    struct sender_entry {
        std::uint64_t span_seq;  // the span's number (spans_.front() is base_seq_)
        std::uint64_t objects_before;
        std::uint64_t objects;
    };
    bool opens_span(const indexed_block& b) const;
    sender_span to_sender_span(const sender_entry& e) const;
    const std::vector<sender_entry>* entries_of(std::string_view sender) const;

    std::uint64_t span_blocks_;
    std::uint64_t span_bytes_;
    std::deque<span> spans_;
    std::uint64_t base_seq_ = 0;  // the number of spans_.front()
    std::map<std::string, std::vector<sender_entry>, std::less<>> senders_;
    std::size_t sender_records_ = 0;
    std::size_t id_bytes_ = 0;
};

}  // namespace objwire::daemon
