// Estimates the bandwidth of one sender's link into objwired from the session's reads, without
// I/O (the caller passes the times), so the arithmetic is unit-tested with synthetic reads.
//
// An interval between two reads is *link time* only when the daemon was waiting for bytes the
// sender had already written: a frame was still incomplete after the earlier read (clients
// write each frame with one write call, so its rest was on the link or in the sender's kernel
// buffer), reading was not paused in between, and the later read did not fill the space it was
// given (a full read means bytes were queued for us: the daemon was the slower side, and the
// interval would measure the daemon, not the link). Link-time intervals are summed until they
// cover `sample_ns` and `sample_bytes`; the sum is one sample (bytes / time), and the estimate
// is an exponentially weighted moving average of the samples.
#pragma once

#include <cstdint>

namespace objwire::daemon {

class link_estimator {
  public:
    struct options {
        std::uint64_t sample_ns = 20'000'000;    // link time one sample covers, at least
        std::uint64_t sample_bytes = 64 * 1024;  // and bytes
        double weight = 0.25;                    // of a new sample in the moving average
    };

    link_estimator() : link_estimator(options{}) {}
    explicit link_estimator(options o) : opts_(o) {}

    // A read of `bytes` completed at now_ns (any monotonic clock, in ns). frame_pending: part
    // of a frame is still missing after it; filled: the read took all the space it was given.
    // True when it completed a sample (the estimate moved).
    bool on_read(std::uint64_t now_ns, std::uint64_t bytes, bool frame_pending, bool filled);
    // Reading paused (the daemon held the connection back): until the next read it is not
    // waiting for the link.
    void on_pause() { pending_ = false; }

    // The estimate in bits per second; 0 before the first sample.
    double bits_per_second() const { return estimate_bps_; }
    std::uint64_t samples() const { return samples_; }

  private:
    options opts_;
    bool pending_ = false;         // the last read left a frame incomplete
    std::uint64_t last_ns_ = 0;    // when the last read completed
    std::uint64_t sum_bytes_ = 0;  // link time and bytes not yet in a sample
    std::uint64_t sum_ns_ = 0;
    double estimate_bps_ = 0;
    std::uint64_t samples_ = 0;
};

}  // namespace objwire::daemon
