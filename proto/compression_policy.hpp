// Whether to compress the next frame, decided per frame from measurements (docs/COMPRESSION.md
// has the rule). Sans-I/O: every time and bandwidth comes in as a number, so tests feed it
// synthetic links and codecs. The sender asks plan() before sealing a frame, reports what a
// compression attempt gave with on_result(), and the I/O layer reports the link's bandwidth,
// its own blocked time and the receiver's decompression speed (from acks).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "proto/compression_stats.hpp"
#include "proto/frame.hpp"

namespace objwire {

// What one codec at one level gave, per raw byte: its cost on this machine and its ratio on
// the data. The connections of one process share them (codec_measures), so a new connection
// starts from its neighbours' figures instead of compressing its first frames to learn them -
// a thousand short connections would otherwise each compress their first two.
struct codec_measure {
    codec_id codec = codec_id::none;
    int level = 0;
    double ratio = 1;      // compressed / raw
    double ns = 0;         // compression time per raw byte
    bool ns_warm = false;  // `ns` comes from frames that followed a compressed frame
};

// Where the policies of one process keep their figures; the implementation (client/lib) locks.
class codec_measures {
  public:
    virtual ~codec_measures() = default;
    virtual std::vector<codec_measure> recall() const = 0;
    virtual void remember(const codec_measure& m) = 0;
};

struct compression_options {
    compression_mode mode = compression_mode::automatic;
    codec_id codec = codec_id::zstd;  // falls back to zlib when not built or not accepted
    // 0 under auto: the policy climbs the codec's levels while the link is the bottleneck
    // (zstd 1/3/6/9, zlib 1/6, lz4 1/9); 0 under always: the codec's default.
    int level = 0;
    std::uint32_t min_frame_bytes = 512;     // smaller frames are never compressed
    std::uint64_t link_bits_per_second = 0;  // configured link; 0: measured
    codec_measures* shared = nullptr;        // figures shared with other connections; null: none
};

// Constants of the rule; tests and benchmarks may change them.
struct compression_tuning {
    double weight = 0.25;  // of the newest sample in the moving averages
    // While not compressing, compress one frame in N (a sample): N is at least sample_every,
    // and large enough that samples add at most sample_budget to the time per raw byte of the
    // slowest stage (c / N <= sample_budget x T_off), up to sample_max.
    std::uint32_t sample_every = 16;
    double sample_budget = 0.01;
    std::uint32_t sample_max = 256;
    // A sample is a run of this many consecutive frames; the first one's time is not counted:
    // after plain frames the codec's tables and buffers are cold, and it measures 2-3x slower
    // than a frame in a run of compressed ones - the cost compressing would have.
    std::uint32_t sample_run = 2;
    double incompressible_ratio = 0.97;      // compressed/raw at or above this gains nothing
    std::uint32_t incompressible_after = 2;  // consecutive such frames before we stop trying
    std::uint32_t probe_first = 64;          // then probe one frame in this many, doubling per
    std::uint32_t probe_max = 1024;          // failed probe up to this
    double hysteresis = 0.05;                // switch on below (1-h) x, off above (1+h) x the cost
    double raise_factor = 2;  // a lower bound raises the link estimate only above this x it
    std::uint64_t interval_bytes = 256 * 1024;  // raw bytes per sender-time sample
    std::uint32_t revisit_every = 64;  // compressed frames between re-measuring a neighbour level
    // Held back downstream (waiting for acks while the link is not the limit):
    double downstream_blocked = 0.3;        // at least this share of the time waiting for acks
    double link_bound_share = 0.7;          // the link counts as the limit above this share of it
    std::uint64_t settle_ns = 200'000'000;  // a phase first settles this long, unmeasured,
    std::uint64_t phase_ns = 250'000'000;   // then its throughput is measured this long
    std::uint32_t retrial_phases = 8;       // phases before the other choice is re-measured
};

class compression_policy {
  public:
    explicit compression_policy(compression_options opts, compression_tuning tuning = {});

    // The peer's accepted codecs (bit n = codec n): picks the codec in use, with fallback.
    void set_accepted(std::uint32_t peer_codecs);
    // The codec of the attempt plan() just asked for (usually the one in use; under auto with
    // zstd, lz4 is a rung of the ladder too).
    codec_id codec() const { return ladder_[tried_].codec; }
    // The level of the attempt plan() just asked for (usually the level in use, sometimes a
    // neighbour being measured).
    int level() const { return ladder_[tried_].level; }

    // Compressing with a context across frames now: a frame that defined its table again would
    // cost little here, but the link is the slow part, so a sender keeps its table instead.
    bool carries_context() const { return stats_.compressing && stream(); }
    // Should a frame of raw_bytes payload be compressed (or sampled, or probed)?
    bool plan(std::size_t raw_bytes);
    // What an attempt gave: compressed size and the time it took. The frame goes out compressed
    // only when that is smaller.
    // `fresh_context`: a zstd_stream frame that began a context afresh - its ratio says
    // nothing of the level's (no history to match against), so it is not averaged in.
    void on_result(std::size_t raw_bytes, std::size_t compressed_bytes, std::uint64_t ns,
                   bool fresh_context = false);
    // A frame that went out uncompressed without an attempt.
    void on_plain(std::size_t raw_bytes);
    // The layout of the payloads that follow (docs/PROTOCOL.md 4.2): columns or not. What
    // zstd_stream's levels gave on the other layout does not hold for this one - in columns
    // level 1 compresses `events` about as well as level 6, in whole frames far worse - so
    // those levels are measured again.
    void on_layout(bool columns);

    // A measured delivery rate. A lower bound (the sender or receiver was the limit, not the
    // link) can only raise the estimate; full samples set it. Ignored when configured.
    void on_link_sample(double bits_per_second, bool lower_bound);
    // Since the previous call: wall time, and the parts of it spent blocked on a full socket
    // buffer and waiting for acks (a full in-flight window). What is left, minus compression,
    // is the sender's own time per raw byte; waiting for acks means something past the link
    // holds the sender back.
    void on_interval(std::uint64_t wall_ns, std::uint64_t socket_blocked_ns,
                     std::uint64_t ack_blocked_ns);
    // Cumulative figures from the receiver's acks: raw bytes it decompressed and the time.
    void on_receiver_report(std::uint64_t raw_bytes, std::uint64_t ns);

    // The counters and the current estimates in the units people read (Mbit/s, MB/s).
    compression_stats stats() const;

  private:
    // What one codec at one level gives, per raw byte, on recent frames.
    struct level_figures : codec_measure {
        bool known = false;
    };
    bool plan_auto();
    // Before the first attempt: the shared figures of the levels this policy may use.
    void recall_shared();
    void share(const level_figures& f) const;
    std::uint32_t sample_interval() const;
    void decide();
    void climb();
    // zstd_stream: a level is measured only over frames that continue its context, so a level
    // is not tried for one frame; the climb commits to the next level instead.
    bool stream() const { return ladder_[step_].codec == codec_id::zstd_stream; }
    double link_ns() const { return 8e9 / link_bps_; }
    double time_plain() const;
    double time_compressed(const level_figures& f) const;
    void average(double& avg, bool& known, double sample) const;
    void add_link_sample(double bits_per_second);
    void judge_interval();

    compression_options opts_;
    compression_tuning tune_;
    compression_stats stats_;
    // (codec, level) pairs auto may use, cheapest first; just one when the level is set.
    std::vector<level_figures> ladder_;
    std::size_t step_ = 0;   // the level in use
    std::size_t tried_ = 0;  // the level of the attempt in flight
    std::uint32_t since_revisit_ = 0;
    // Per raw byte, in nanoseconds; `known` flags say whether a figure exists yet.
    double decompress_ns_ = 0, sender_ns_ = 0;
    bool decompress_known_ = false, sender_known_ = false;
    double link_bps_ = 0;  // confirmed capacity: median of recent samples, or configured
    // Recent full samples. A median, not an average: a shaper's burst or an idle moment gives
    // single samples far off the link's rate, and one of them must not move the estimate.
    std::array<double, 5> link_samples_{};
    std::size_t link_count_ = 0;
    double link_floor_bps_ = 0;  // largest lower bound seen
    bool recalled_ = false;      // recall_shared() ran
    std::uint32_t since_try_ = 0;
    std::uint32_t run_left_ = 0;  // frames left in the current sample run
    bool cold_ = false;           // the attempt in flight follows a plain frame
    bool last_attempt_ = false;   // the previous frame was an attempt
    bool columns_ = false;        // the layout the zstd_stream figures were measured on
    std::uint32_t incompressible_run_ = 0;
    std::uint32_t probe_every_ = 0;
    std::uint64_t receiver_raw_ = 0, receiver_ns_ = 0;  // last cumulative report
    std::uint64_t interval_raw_ = 0, interval_compress_ns_ = 0;
    std::uint64_t interval_wall_ns_ = 0, interval_blocked_ns_ = 0, interval_ack_ns_ = 0;
    std::uint64_t interval_wire_ = 0, interval_packed_raw_ = 0;  // bytes sent; raw bytes compressed
    // Downstream-bound: raw bytes per ns measured without [0] and with [1] compression.
    std::array<double, 2> throughput_{};
    std::array<bool, 2> throughput_known_{};
    std::array<std::uint32_t, 2> throughput_age_{};  // phases since last measured
    struct phase_totals {
        std::uint64_t wall = 0, ack_blocked = 0, raw = 0, packed = 0, wire = 0;
    };
    phase_totals phase_;
    std::uint64_t settle_ns_ = 0;
    bool trial_ = false;  // the current phase tries the other choice
    bool downstream_choice_ = false;
};

}  // namespace objwire
