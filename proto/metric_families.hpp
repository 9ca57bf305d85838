// The daemon's metrics as typed values: families of samples, each sample a name, its labels as
// (name, value) pairs and a value that keeps an unsigned counter exact. The stats frame carries
// them (docs/PROTOCOL.md section 1.3); the daemon renders the same families as Prometheus text
// for its HTTP endpoint, and `objwire stats` prints them as they came.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "proto/byte_buffer.hpp"
#include "proto/errors.hpp"
#include "proto/result.hpp"

namespace objwire {

enum class metric_type : std::uint8_t { counter = 0, gauge = 1, histogram = 2 };
const char* metric_type_name(metric_type t) noexcept;  // "counter", "gauge", "histogram"

struct metric_label {
    std::string name;
    std::string value;
    bool operator==(const metric_label&) const = default;
};

// An unsigned integer stays one (a counter past 2^53 would lose its last digits as a double).
using metric_value = std::variant<std::uint64_t, double>;
double as_double(const metric_value& v) noexcept;

struct metric_sample {
    std::string name;  // the family's, or a histogram's name_bucket / name_sum / name_count
    std::vector<metric_label> labels;
    metric_value value = std::uint64_t{0};
    bool operator==(const metric_sample&) const = default;
};

struct metric_family {
    std::string name;
    metric_type type = metric_type::gauge;
    std::string help;
    std::vector<metric_sample> samples;
    bool operator==(const metric_family&) const = default;
};

// What a decoder holds for one stats payload at most: the daemon sends about 100 families and a
// few hundred samples; these bound what a hostile peer's 4 MiB frame can make a client allocate.
inline constexpr std::size_t max_metric_families = 4096;
inline constexpr std::size_t max_metric_samples = 65536;  // over all families
inline constexpr std::size_t max_metric_labels = 16;      // per sample

void encode_metric_families(std::span<const metric_family> families, byte_buffer& out);
// Errors: the field list's own (truncated, bad_varint, trailing_bytes, string_too_long,
// invalid_utf8), too_many_elements over a cap above, bad_message for a field out of place, a
// name that is not a metric or label name, a sample without exactly one value.
result<std::vector<metric_family>> decode_metric_families(std::span<const std::uint8_t> payload);

// The sample named `name` whose labels are exactly `labels` (in any order), or nullptr.
const metric_sample* find_metric_sample(std::span<const metric_family> families,
                                        std::string_view name,
                                        const std::vector<metric_label>& labels = {});

// [a-zA-Z_:][a-zA-Z0-9_:]* and [a-zA-Z_][a-zA-Z0-9_]*: what Prometheus accepts.
bool valid_metric_name(std::string_view name) noexcept;
bool valid_label_name(std::string_view name) noexcept;

}  // namespace objwire
