// The stats frame's payload (docs/PROTOCOL.md section 1.3): typed metric families through
// encode and decode, cut at every byte, carried by a frame split at every byte, and every
// malformed or oversized payload refused as a value.
#include <gtest/gtest.h>

#include <limits>

#include "proto/control_fields.hpp"
#include "proto/frame.hpp"
#include "proto/frame_reader.hpp"
#include "proto/metric_families.hpp"

namespace objwire {
namespace {

std::vector<metric_family> sample_families() {
    std::vector<metric_family> f(3);
    f[0] = {"objwire_objects_in_total",
            metric_type::counter,
            "Objects stored.",
            {{"objwire_objects_in_total", {}, std::numeric_limits<std::uint64_t>::max()}}};
    f[1] = {"objwire_build_info",
            metric_type::gauge,
            "Always 1.",
            {{"objwire_build_info", {{"version", "0.1.0"}, {"protocol", "1"}}, std::uint64_t{1}},
             {"objwire_build_info", {{"version", "\"q\\\n\xc3\xa9"}, {"protocol", ""}}, 2.5}}};
    f[2] = {"objwire_ack_latency_seconds",
            metric_type::histogram,
            "",
            {{"objwire_ack_latency_seconds_bucket", {{"le", "+Inf"}}, std::uint64_t{3}},
             {"objwire_ack_latency_seconds_sum", {}, -0.125},
             {"objwire_ack_latency_seconds_count", {}, std::uint64_t{3}}}};
    return f;
}

std::vector<std::uint8_t> encoded(const std::vector<metric_family>& f) {
    byte_buffer out;
    encode_metric_families(f, out);
    return {out.data(), out.data() + out.size()};
}

std::size_t samples(const std::vector<metric_family>& f) {
    std::size_t n = 0;
    for (const auto& family : f)
        n += family.samples.size();
    return n;
}

TEST(MetricFamilies, RoundTripKeepsTypesLabelsAndExactCounters) {
    const auto f = sample_families();
    const auto bytes = encoded(f);
    auto back = decode_metric_families(bytes);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(*back, f);
    // 2^64 - 1 stays an integer: a double would have rounded it to 2^64.
    EXPECT_EQ(std::get<std::uint64_t>((*back)[0].samples[0].value),
              std::numeric_limits<std::uint64_t>::max());
    auto none = decode_metric_families({});
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
}

// A payload cut short decodes to an error, or - cut at a field boundary after a value - to
// the families before the cut, never to anything the whole payload does not hold.
TEST(MetricFamilies, EveryPrefixIsRefusedOrAPrefixOfTheWhole) {
    const auto f = sample_families();
    const auto bytes = encoded(f);
    std::size_t accepted = 0;
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        auto part = decode_metric_families(std::span(bytes).first(n));
        if (!part) continue;
        ++accepted;
        ASSERT_LE(part->size(), f.size()) << n;
        EXPECT_LT(samples(*part), samples(f)) << n;
        for (std::size_t i = 0; i < part->size(); ++i) {
            EXPECT_EQ((*part)[i].name, f[i].name) << n;
            const auto& got = (*part)[i].samples;
            ASSERT_LE(got.size(), f[i].samples.size()) << n;
            for (std::size_t k = 0; k < got.size(); ++k)
                EXPECT_EQ(got[k], f[i].samples[k]) << n;
        }
    }
    // The empty prefix, the boundaries after each family's name, type and help, after each
    // sample's value: at least one per sample and one per family.
    EXPECT_GE(accepted, samples(f) + f.size());
}

TEST(MetricFamilies, AStatsFrameSplitAtEveryByteDecodesWhole) {
    const auto f = sample_families();
    byte_buffer payload;
    encode_metric_families(f, payload);
    byte_buffer stream;
    append_frame(stream, frame_kind::stats, 0, payload.span());
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        frame_reader reader(1 << 20, 16);
        std::vector<std::span<const std::uint8_t>> pieces = {stream.span().first(cut),
                                                             stream.span().subspan(cut)};
        std::optional<std::vector<metric_family>> got;
        for (const auto& piece : pieces) {
            std::size_t pos = 0;
            while (pos < piece.size()) {  // bounded: each pass copies at least one byte
                auto space = reader.prepare();
                const std::size_t n = std::min(space.size(), piece.size() - pos);
                std::copy_n(piece.data() + pos, n, space.data());
                reader.commit(n);
                pos += n;
            }
            auto r = reader.next();
            if (r.state != frame_parser::status::frame) continue;
            EXPECT_EQ(r.frame.header.kind, frame_kind::stats);
            auto d = decode_metric_families(r.frame.payload);
            ASSERT_TRUE(d) << cut;
            got = std::move(*d);
        }
        ASSERT_TRUE(got) << cut;
        EXPECT_EQ(*got, f) << cut;
    }
}

// Payloads written field by field, as a peer of another make might.
class Fields {
  public:
    Fields& text(std::uint64_t key, std::string_view s) {
        fields::field_writer(out_).text(key, s);
        return *this;
    }
    Fields& number(std::uint64_t key, std::uint64_t v) {
        fields::field_writer(out_).number(key, v);
        return *this;
    }
    Fields& raw(std::uint64_t key, std::size_t bytes) {
        std::vector<std::uint8_t> b(bytes, 0);
        fields::field_writer(out_).bytes(key, b);
        return *this;
    }
    Fields& sample(std::string_view name, std::uint64_t v) { return text(4, name).number(7, v); }
    std::error_code decode() const {
        auto r = decode_metric_families(out_.span());
        return r ? std::error_code{} : r.error();
    }

  private:
    byte_buffer out_;
};

Fields family(std::string_view name = "m") {
    Fields f;
    f.text(1, name).number(2, 1).text(3, "help");
    return f;
}

TEST(MetricFamilies, FieldsOutOfPlaceAreRefused) {
    const std::error_code bad = proto_errc::bad_message;
    EXPECT_EQ(Fields().sample("m", 1).decode(), bad);               // a sample before any family
    EXPECT_EQ(Fields().number(2, 1).decode(), bad);                 // a type before any family
    EXPECT_EQ(family().number(7, 1).decode(), bad);                 // a value before its sample
    EXPECT_EQ(family().text(4, "m").decode(), bad);                 // a sample without a value
    EXPECT_EQ(family().text(4, "m").text(1, "n").decode(), bad);    // ... before the next family
    EXPECT_EQ(family().sample("m", 1).number(7, 2).decode(), bad);  // two values
    EXPECT_EQ(family().sample("m", 1).text(6, "v").decode(), bad);  // a label value alone
    EXPECT_EQ(family().text(4, "m").text(5, "a").number(7, 1).decode(), bad);  // no label value
    EXPECT_EQ(family().sample("m", 1).text(5, "a").decode(), bad);  // a label after the value
    EXPECT_EQ(family()
                  .text(4, "m")
                  .text(5, "a")
                  .text(6, "1")
                  .text(5, "a")
                  .text(6, "2")
                  .number(7, 1)
                  .decode(),
              bad);                                      // a label twice
    EXPECT_EQ(family("1m").decode(), bad);               // not a metric name
    EXPECT_EQ(family().sample("m-x", 1).decode(), bad);  // nor this
    EXPECT_EQ(family().text(4, "m").text(5, "a:b").text(6, "").number(7, 1).decode(), bad);
    EXPECT_EQ(Fields().text(1, "m").number(2, 3).decode(), bad);  // no such type
    // What a later version may add is skipped.
    EXPECT_EQ(family().text(99, "later").sample("m", 1).decode(), std::error_code{});
}

TEST(MetricFamilies, ValuesAndTextsAreCheckedAsTheOtherPayloads) {
    EXPECT_EQ(family().text(4, "m").raw(8, 7).decode(), make_error_code(proto_errc::truncated));
    EXPECT_EQ(family().text(4, "m").raw(8, 9).decode(),
              make_error_code(proto_errc::trailing_bytes));
    EXPECT_EQ(family().text(4, "m").raw(8, 8).decode(), std::error_code{});
    EXPECT_EQ(family().text(3, std::string(fields::max_control_string + 1, 'h')).decode(),
              make_error_code(proto_errc::string_too_long));
    EXPECT_EQ(family().text(4, "m").text(5, "a").text(6, "\xff").number(7, 1).decode(),
              make_error_code(proto_errc::invalid_utf8));
    byte_buffer cut;
    cut.put_varint(1);
    cut.put_varint(5);
    cut.append(std::string_view("ab"));
    EXPECT_EQ(decode_metric_families(cut.span()).error(), make_error_code(proto_errc::truncated));
}

TEST(MetricFamilies, CountsOverTheCapsAreRefused) {
    const std::error_code too_many = proto_errc::too_many_elements;
    Fields labels = family();
    labels.text(4, "m");
    for (std::size_t i = 0; i <= max_metric_labels; ++i)
        labels.text(5, "l" + std::to_string(i)).text(6, "");
    labels.number(7, 1);
    EXPECT_EQ(labels.decode(), too_many);

    Fields families;
    for (std::size_t i = 0; i < max_metric_families; ++i)
        families.text(1, "m");
    EXPECT_EQ(families.decode(), std::error_code{});
    families.text(1, "m");
    EXPECT_EQ(families.decode(), too_many);

    Fields many = family();
    for (std::size_t i = 0; i < max_metric_samples; ++i)
        many.sample("m", i);
    EXPECT_EQ(many.decode(), std::error_code{});
    many.sample("m", 0);
    EXPECT_EQ(many.decode(), too_many);
}

TEST(MetricFamilies, FindsASampleByNameAndLabelsInAnyOrder) {
    const auto f = sample_families();
    const auto* s =
        find_metric_sample(f, "objwire_build_info", {{"protocol", "1"}, {"version", "0.1.0"}});
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(as_double(s->value), 1);
    EXPECT_EQ(find_metric_sample(f, "objwire_build_info", {{"version", "0.1.0"}}), nullptr);
    EXPECT_EQ(find_metric_sample(f, "objwire_build_info"), nullptr);
    ASSERT_NE(find_metric_sample(f, "objwire_ack_latency_seconds_sum"), nullptr);
    EXPECT_EQ(as_double(find_metric_sample(f, "objwire_ack_latency_seconds_sum")->value), -0.125);
}

TEST(MetricFamilies, NamesArePrometheusNames) {
    EXPECT_TRUE(valid_metric_name("a:b_c9"));
    EXPECT_TRUE(valid_metric_name("_x"));
    EXPECT_FALSE(valid_metric_name(""));
    EXPECT_FALSE(valid_metric_name("9a"));
    EXPECT_FALSE(valid_metric_name("a b"));
    EXPECT_TRUE(valid_label_name("le"));
    EXPECT_FALSE(valid_label_name("a:b"));
    EXPECT_FALSE(valid_label_name(""));
}

}  // namespace
}  // namespace objwire
