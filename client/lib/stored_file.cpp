#include <objwire/stored_file.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "proto/journal_block.hpp"

namespace objwire::client {

stored_file::stored_file(std::string path) : path_(std::move(path)) {}

bool stored_file::fail(std::error_code ec, std::string text) {
    error_ = ec;
    last_error_ = path_ + ": " + std::move(text);
    return false;
}

std::error_code stored_file::open() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
        const int err = errno;
        fail(std::error_code(err, std::generic_category()),
             std::string("cannot open: ") + std::strerror(err));
        return error_;
    }
    data_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    position_ = 0;
    pending_.clear();
    next_ = 0;
    return {};
}

bool stored_file::next_block() {
    if (position_ == data_.size()) return false;
    const auto parsed = parse_journal_block(std::span(data_).subspan(position_));
    const std::string where = "at byte " + std::to_string(position_) + ": ";
    if (parsed.state != journal_block_parse::status::block)
        return fail(parsed.error, where +
                                      (parsed.state == journal_block_parse::status::need_more
                                           ? "the file ends inside a block: "
                                           : "not a journal block: ") +
                                      parsed.error.message());
    pending_.clear();
    next_ = 0;
    std::uint64_t offset = parsed.block.header.first_offset;
    const shared_sender_id sender(std::string(parsed.block.sender_id));
    const auto ec = decode_journal_block(parsed.block, [&](message&& m) {
        pending_.push_back({offset++, sender, std::move(m)});
    });
    if (ec) return fail(ec, where + "cannot decode block: " + ec.message());
    position_ += parsed.size;
    return true;
}

bool stored_file::next(stored_message& out) {
    while (next_ == pending_.size())
        if (error_ || !next_block()) return false;
    out = std::move(pending_[next_++]);
    return true;
}

}  // namespace objwire::client
