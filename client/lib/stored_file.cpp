#include <objwire/stored_file.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "proto/journal_walk.hpp"

namespace objwire::client {
namespace {
constexpr std::size_t read_chunk = 1 << 20;
}

stored_file::stored_file(std::string path) : path_(std::move(path)) {}

bool stored_file::fail(std::error_code ec, std::string text) {
    error_ = ec;
    last_error_ = path_ + ": " + std::move(text);
    return false;
}

std::error_code stored_file::open() {
    in_ = std::ifstream(path_, std::ios::binary);
    if (!in_) {
        const int err = errno;
        fail(std::error_code(err, std::generic_category()),
             std::string("cannot open: ") + std::strerror(err));
        return error_;
    }
    buf_.clear();
    start_ = 0;
    position_ = 0;
    eof_ = false;
    pending_.clear();
    next_ = 0;
    return {};
}

bool stored_file::fill(std::size_t need) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(start_));
    start_ = 0;
    while (buf_.size() < need && !eof_) {
        const std::size_t have = buf_.size();
        const std::size_t want = std::max(read_chunk, need - have);
        buf_.resize(have + want);
        in_.read(reinterpret_cast<char*>(buf_.data() + have), static_cast<std::streamsize>(want));
        buf_.resize(have + static_cast<std::size_t>(in_.gcount()));
        if (in_.bad()) {
            const int err = errno;
            return fail(std::error_code(err, std::generic_category()),
                        std::string("cannot read: ") + std::strerror(err));
        }
        eof_ = in_.eof();
    }
    return true;
}

bool stored_file::next_block() {
    for (;;) {
        // Offsets unchecked (a walker that checks none keeps no state between blocks): the
        // reader of one file does not know where its numbering starts.
        const auto s = journal_walker().next(std::span(buf_).subspan(start_), eof_);
        // Only a failure names the place: no string is built for a block that reads.
        const auto where = [this] { return "at byte " + std::to_string(position_) + ": "; };
        switch (s.what) {
            case journal_walk::need_more:
                if (!fill(s.size)) return false;
                continue;
            case journal_walk::end:
                return false;
            case journal_walk::torn_tail:
                return fail(s.error,
                            where() + "the file ends inside a block: " + s.error.message());
            case journal_walk::damaged:
            case journal_walk::offset_jump:
                return fail(s.error, where() + "not a journal block: " + s.error.message());
            case journal_walk::block:
                break;
        }
        pending_.clear();
        next_ = 0;
        std::uint64_t offset = s.block.header.first_offset;
        const shared_sender_id sender(std::string(s.block.sender_id));
        const auto ec = decode_journal_block(s.block, [&](message&& m) {
            pending_.push_back({offset++, sender, std::move(m), s.block.header.time_ms});
        });
        if (ec) return fail(ec, where() + "cannot decode block: " + ec.message());
        start_ += s.size;
        position_ += s.size;
        return true;
    }
}

bool stored_file::next(stored_message& out) {
    while (next_ == pending_.size())
        if (error_ || !next_block()) return false;
    out = std::move(pending_[next_++]);
    return true;
}

}  // namespace objwire::client
