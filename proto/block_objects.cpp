#include "proto/block_objects.hpp"

#include "proto/errors.hpp"
#include "proto/limits.hpp"

namespace objwire {

std::error_code block_objects::fail(std::error_code ec, std::string detail) {
    detail_ = std::move(detail);
    decoder_.reset();
    left_ = 0;
    return ec;
}

std::error_code block_objects::open(const journal_block_view& b) {
    decoder_.emplace(limits_);
    in_ = byte_reader(b.payload);
    offset_ = b.header.first_offset;
    left_ = b.header.message_count;
    if (auto ec = decoder_->open_payload(b.payload, in_))
        return fail(ec, "cannot decode the stored block at offset " + std::to_string(offset_) +
                            ": " + ec.message());
    return {};
}

std::error_code block_objects::next(message& out, std::uint64_t& offset, bool& got) {
    got = false;
    while (left_ > 0 && !got) {
        if (in_.at_end())
            return fail(journal_errc::count_mismatch, "the stored block before offset " +
                                                          std::to_string(offset_) +
                                                          " holds fewer objects than it announces");
        if (auto ec = decoder_->next(in_, out, got)) {
            const bool decoded_bytes = ec == proto_errc::reference_bytes_exceeded;
            const auto limit = decoded_bytes ? std::to_string(limits_.max_reference_bytes) +
                                                   " bytes, read.max_decoded_bytes"
                                             : exceeded_limit(ec, limits_);
            return fail(ec, "cannot decode the stored object at offset " + std::to_string(offset_) +
                                ": " + ec.message() +
                                (limit.empty() ? std::string() : " (" + limit + ")"));
        }
    }
    if (!got) return {};
    offset = offset_++;
    // What trails the last object is checked as it is handed out, so a used-up block holds
    // nothing more.
    return --left_ == 0 ? finish() : std::error_code();
}

std::error_code block_objects::finish() {
    while (!in_.at_end()) {
        bool extra = false;
        if (auto ec = decoder_->next(in_, scratch_, extra))
            return fail(ec, "cannot decode the stored block before offset " +
                                std::to_string(offset_) + ": " + ec.message());
        if (extra)
            return fail(journal_errc::count_mismatch, "the stored block before offset " +
                                                          std::to_string(offset_) +
                                                          " holds more objects than it announces");
    }
    if (auto ec = decoder_->close_payload())
        return fail(ec, "cannot decode the stored block before offset " + std::to_string(offset_) +
                            ": " + ec.message());
    decoder_.reset();
    return {};
}

}  // namespace objwire
