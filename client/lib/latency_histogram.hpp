// A log-linear (HDR-style) histogram of latencies in nanoseconds, for `objwire bench --rate`.
// Values below 256 are counted exactly; above, each power of two is split into 128 equal
// buckets, so a bucket is never wider than 1/128 of its lowest value. A percentile is reported
// as its bucket's midpoint (clamped to the exact min and max seen), which puts it within 1/256
// (0.39%) of the sample a sorted list would give. Counts take 36 KiB whatever the sample
// count; values above 2^40 ns (18 minutes) count in the top bucket. No I/O.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace objwire::client {

class latency_histogram {
  public:
    static constexpr int sub_bucket_bits = 8;  // 2^8 exact values, then 2^7 buckets per octave
    static constexpr int max_value_bits = 40;
    // The largest relative distance between a reported percentile and the exact one.
    static constexpr double precision = 1.0 / (1u << sub_bucket_bits);

    latency_histogram() : counts_(bucket_count, 0) {}

    void record(std::uint64_t ns) {
        ++counts_[index_of(ns)];
        ++count_;
        min_ = std::min(min_, ns);
        max_ = std::max(max_, ns);
        sum_ += static_cast<double>(ns);
    }
    void merge(const latency_histogram& other) {
        for (std::size_t i = 0; i < counts_.size(); ++i)
            counts_[i] += other.counts_[i];
        count_ += other.count_;
        min_ = std::min(min_, other.min_);
        max_ = std::max(max_, other.max_);
        sum_ += other.sum_;
    }

    std::uint64_t count() const { return count_; }
    std::uint64_t max() const { return count_ ? max_ : 0; }
    std::uint64_t min() const { return count_ ? min_ : 0; }
    double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }

    // The value at quantile q (0..1]: the sample of rank ceil(q * count) in sorted order,
    // within `precision` of it.
    std::uint64_t percentile(double q) const {
        if (count_ == 0) return 0;
        const double exact_rank = std::ceil(q * static_cast<double>(count_));
        const auto rank =
            std::clamp<std::uint64_t>(static_cast<std::uint64_t>(exact_rank), 1, count_);
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < counts_.size(); ++i) {
            seen += counts_[i];
            if (seen >= rank) return std::clamp(midpoint_of(i), min_, max_);
        }
        return max_;
    }

  private:
    static constexpr std::uint64_t exact_limit = 1u << sub_bucket_bits;  // 256
    static constexpr std::uint64_t half = exact_limit / 2;               // buckets per octave
    static constexpr std::size_t bucket_count =
        exact_limit + (max_value_bits - sub_bucket_bits) * half;

    static std::size_t index_of(std::uint64_t v) {
        if (v < exact_limit) return static_cast<std::size_t>(v);
        const int top = std::bit_width(v) - 1;               // >= sub_bucket_bits
        const int shift = top - (sub_bucket_bits - 1);       // >= 1
        const std::uint64_t mantissa = (v >> shift) - half;  // 0..127
        const std::size_t i = exact_limit + static_cast<std::size_t>(shift - 1) * half + mantissa;
        return std::min(i, bucket_count - 1);
    }
    static std::uint64_t midpoint_of(std::size_t i) {
        if (i < exact_limit) return i;
        const std::size_t shift = (i - exact_limit) / half + 1;
        const std::uint64_t mantissa = (i - exact_limit) % half + half;
        const std::uint64_t low = mantissa << shift;
        return low + ((std::uint64_t{1} << shift) >> 1);
    }

    std::vector<std::uint64_t> counts_;
    std::uint64_t count_ = 0;
    std::uint64_t min_ = UINT64_MAX;
    std::uint64_t max_ = 0;
    double sum_ = 0;
};

}  // namespace objwire::client
