#include "daemon/serve/link_estimator.hpp"

namespace objwire::daemon {

bool link_estimator::on_read(std::uint64_t now_ns, std::uint64_t bytes, bool frame_pending,
                             bool filled) {
    if (pending_ && !filled && now_ns > last_ns_) {
        sum_bytes_ += bytes;
        sum_ns_ += now_ns - last_ns_;
    }
    last_ns_ = now_ns;
    pending_ = frame_pending;
    if (sum_ns_ < opts_.sample_ns || sum_bytes_ < opts_.sample_bytes) return false;
    const double sample = static_cast<double>(sum_bytes_) * 8e9 / static_cast<double>(sum_ns_);
    estimate_bps_ =
        samples_ == 0 ? sample : estimate_bps_ + opts_.weight * (sample - estimate_bps_);
    ++samples_;
    sum_bytes_ = sum_ns_ = 0;
    return true;
}

}  // namespace objwire::daemon
