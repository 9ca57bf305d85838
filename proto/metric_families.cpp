#include "proto/metric_families.hpp"

#include <algorithm>
#include <bit>

#include "proto/byte_reader.hpp"
#include "proto/control_fields.hpp"

namespace objwire {
namespace {

using namespace fields;

// The stats payload's fields (docs/PROTOCOL.md section 3): a family, its samples, their labels
// and values, flat and in order, like the other list payloads.
enum field_key : std::uint64_t {
    family_name = 1,
    family_type = 2,
    family_help = 3,
    sample_name = 4,
    label_name = 5,
    label_value = 6,
    value_unsigned = 7,
    value_float = 8,
};

bool name_char(char c, bool first, bool colon) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    return letter || (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view name, bool colon) {
    if (name.empty()) return false;
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!name_char(name[i], i == 0, colon)) return false;
    return true;
}

void encode_sample(field_writer& f, const metric_sample& s) {
    f.text(sample_name, s.name);
    for (const auto& l : s.labels) {
        f.text(label_name, l.name);
        f.text(label_value, l.value);
    }
    if (const auto* u = std::get_if<std::uint64_t>(&s.value)) {
        f.number(value_unsigned, *u);
        return;
    }
    byte_buffer bits;
    bits.put_u64(std::bit_cast<std::uint64_t>(std::get<double>(s.value)));
    f.bytes(value_float, bits.span());
}

// Builds the families field by field, holding where the current sample and label stand so a
// field out of place (a value before its sample, a label name without its value) is refused.
class families_decoder {
  public:
    proto_errc field(std::uint64_t key, byte_reader& f) {
        switch (key) {
            case family_name:
                return start_family(f);
            case family_type:
                if (out_.empty()) return proto_errc::bad_message;
                return read_type(f, out_.back().type);
            case family_help:
                if (out_.empty()) return proto_errc::bad_message;
                return read_text(f, out_.back().help);
            case sample_name:
                return start_sample(f);
            case label_name:
                return start_label(f);
            case label_value:
                if (!label_open_) return proto_errc::bad_message;
                label_open_ = false;
                return read_text(f, sample().labels.back().value);
            case value_unsigned:
            case value_float:
                return read_value(key, f);
            default:  // a later version's field: skipped
                f.take(f.remaining());
                return proto_errc::ok;
        }
    }
    result<std::vector<metric_family>> finish() {
        if (auto e = end_sample(); e != proto_errc::ok) return e;
        return std::move(out_);
    }

  private:
    metric_sample& sample() { return out_.back().samples.back(); }

    // The sample before the next one (or the end) must be whole: its value given, its last
    // label's value too.
    proto_errc end_sample() {
        if (sample_open_ && (!value_seen_ || label_open_)) return proto_errc::bad_message;
        sample_open_ = false;
        return proto_errc::ok;
    }

    proto_errc start_family(byte_reader& f) {
        if (auto e = end_sample(); e != proto_errc::ok) return e;
        if (out_.size() == max_metric_families) return proto_errc::too_many_elements;
        out_.emplace_back();
        if (auto e = read_text(f, out_.back().name); e != proto_errc::ok) return e;
        return valid_metric_name(out_.back().name) ? proto_errc::ok : proto_errc::bad_message;
    }

    proto_errc start_sample(byte_reader& f) {
        if (out_.empty()) return proto_errc::bad_message;
        if (auto e = end_sample(); e != proto_errc::ok) return e;
        if (samples_ == max_metric_samples) return proto_errc::too_many_elements;
        ++samples_;
        out_.back().samples.emplace_back();
        sample_open_ = true;
        value_seen_ = false;
        if (auto e = read_text(f, sample().name); e != proto_errc::ok) return e;
        return valid_metric_name(sample().name) ? proto_errc::ok : proto_errc::bad_message;
    }

    proto_errc start_label(byte_reader& f) {
        if (!sample_open_ || label_open_ || value_seen_) return proto_errc::bad_message;
        auto& labels = sample().labels;
        if (labels.size() == max_metric_labels) return proto_errc::too_many_elements;
        metric_label l;
        if (auto e = read_text(f, l.name); e != proto_errc::ok) return e;
        const bool repeated = std::any_of(labels.begin(), labels.end(),
                                          [&](const metric_label& o) { return o.name == l.name; });
        if (!valid_label_name(l.name) || repeated) return proto_errc::bad_message;
        labels.push_back(std::move(l));
        label_open_ = true;
        return proto_errc::ok;
    }

    proto_errc read_value(std::uint64_t key, byte_reader& f) {
        if (!sample_open_ || label_open_ || value_seen_) return proto_errc::bad_message;
        value_seen_ = true;
        if (key == value_unsigned) {
            std::uint64_t v = 0;
            if (auto e = read_number(f, v); e != proto_errc::ok) return e;
            sample().value = v;
            return proto_errc::ok;
        }
        const auto bits = f.fixed<std::uint64_t>();
        if (!f.ok()) return f.error();
        if (!f.at_end()) return proto_errc::trailing_bytes;
        sample().value = std::bit_cast<double>(bits);
        return proto_errc::ok;
    }

    static proto_errc read_type(byte_reader& f, metric_type& out) {
        std::uint64_t v = 0;
        if (auto e = read_number(f, v); e != proto_errc::ok) return e;
        if (v > static_cast<std::uint64_t>(metric_type::histogram)) return proto_errc::bad_message;
        out = static_cast<metric_type>(v);
        return proto_errc::ok;
    }

    std::vector<metric_family> out_;
    std::size_t samples_ = 0;
    bool sample_open_ = false;
    bool value_seen_ = false;
    bool label_open_ = false;
};

}  // namespace

const char* metric_type_name(metric_type t) noexcept {
    switch (t) {
        case metric_type::counter:
            return "counter";
        case metric_type::histogram:
            return "histogram";
        default:
            return "gauge";
    }
}

double as_double(const metric_value& v) noexcept {
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
    return std::get<double>(v);
}

bool valid_metric_name(std::string_view name) noexcept {
    return valid_name(name, true);
}

bool valid_label_name(std::string_view name) noexcept {
    return valid_name(name, false);
}

void encode_metric_families(std::span<const metric_family> families, byte_buffer& out) {
    field_writer f(out);
    for (const auto& family : families) {
        f.text(family_name, family.name);
        f.number(family_type, static_cast<std::uint64_t>(family.type));
        f.text(family_help, family.help);
        for (const auto& s : family.samples)
            encode_sample(f, s);
    }
}

result<std::vector<metric_family>> decode_metric_families(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    families_decoder d;
    const auto e =
        read_fields(in, [&](std::uint64_t key, byte_reader& f) { return d.field(key, f); });
    if (e != proto_errc::ok) return e;
    return d.finish();
}

const metric_sample* find_metric_sample(std::span<const metric_family> families,
                                        std::string_view name,
                                        const std::vector<metric_label>& labels) {
    const auto same_labels = [&](const metric_sample& s) {
        return s.labels.size() == labels.size() &&
               std::is_permutation(s.labels.begin(), s.labels.end(), labels.begin());
    };
    for (const auto& family : families)
        for (const auto& s : family.samples)
            if (s.name == name && same_labels(s)) return &s;
    return nullptr;
}

}  // namespace objwire
