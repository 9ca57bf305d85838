#include "proto/frame_reader.hpp"

#include <algorithm>

namespace objwire {

std::span<std::uint8_t> frame_reader::prepare() {
    if (start_ > 0) {
        buf_.consume_front(start_);
        start_ = 0;
    }
    // Room for the rest of a frame we know the size of, and never less than a block.
    const std::size_t want =
        std::max(block_size_, needed_ > buf_.size() ? needed_ - buf_.size() : 0);
    std::uint8_t* p = buf_.prepare(want);
    return {p, buf_.capacity() - buf_.size()};
}

frame_parser::result frame_reader::next() {
    auto r = parser_.parse(buf_.span().subspan(start_));
    if (r.state == frame_parser::status::frame) {
        start_ += r.size;
        needed_ = 0;
    } else if (r.state == frame_parser::status::need_more) {
        needed_ = r.size;
    }
    return r;
}

}  // namespace objwire
