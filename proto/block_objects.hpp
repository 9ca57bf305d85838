// The objects of one verified journal block (as read_client hands it out), decoded one per
// next() with a fresh decoder, so a reader holds one decoded object however many the block
// announces. The count the header announces is checked both ways: fewer objects than it says
// fail at the payload's end, more fail at the first extra one, and after the last only reset
// ops may follow.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <system_error>

#include "proto/byte_reader.hpp"
#include "proto/decoder.hpp"
#include "proto/journal_block.hpp"
#include "proto/value.hpp"

namespace objwire {

class block_objects {
  public:
    // `limits`: the journal's (journal_block_limits(): another table budget would change what
    // references mean) with the reader's own cap on decoded bytes.
    explicit block_objects(decoder_limits limits) : limits_(limits) {}

    // Starts on `b`, whose payload must stay valid until the block is used up.
    std::error_code open(const journal_block_view& b);
    // The next object into out and its offset; got is false once the block is used up. With
    // the last object, what trails it is checked. On an error, error_detail() says where.
    std::error_code next(message& out, std::uint64_t& offset, bool& got);
    // Objects announced and not yet decoded.
    std::uint32_t left() const { return left_; }
    const std::string& error_detail() const { return detail_; }

  private:
    std::error_code fail(std::error_code ec, std::string detail);
    std::error_code finish();

    decoder_limits limits_;
    std::optional<stream_decoder> decoder_;
    byte_reader in_;
    std::uint32_t left_ = 0;
    std::uint64_t offset_ = 0;  // of the next object
    message scratch_;           // what trails the last object: reset ops only, if intact
    std::string detail_;
};

}  // namespace objwire
