// The encoder's fast paths against their plain definitions: hex packing a word at a
// time against try_pack_hex, the short-string copy against memcpy and the UTF-8 check, the
// lookup's short-string cache and the fields' memos against the hash index under evictions and
// resets, and the encoder's output bytes against digests of the encoder before them.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "proto/encoder_literals.hpp"
#include "proto/reference_table.hpp"
#include "proto/string_hash.hpp"
#include "proto/string_lookup.hpp"
#include "proto/utf8.hpp"
#include "test_support.hpp"
#include "tests/bench/codec_digest.hpp"

namespace objwire {
namespace {

// Every length 0..40 (odd ones never pack), every position, every byte value there.
TEST(EncoderFastPaths, HexWordsPackExactlyWhatTryPackHexPacks) {
    const std::string digits = "0123456789abcdef";
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i)
            s += digits[(i * 5 + n) % 16];
        std::vector<std::uint8_t> want(n / 2 + 1);
        std::vector<std::uint8_t> got(n / 2 + 1, 0xEE);
        ASSERT_EQ(pack_hex_words(s, got.data()), try_pack_hex(s, want.data())) << s;
        if (n >= hex_string_min_digits && n % 2 == 0) {
            EXPECT_TRUE(std::equal(want.begin(), want.begin() + n / 2, got.begin())) << s;
            EXPECT_EQ(got[n / 2], 0xEE) << "wrote past the packed bytes: " << s;
        }
        for (std::size_t i = 0; i < n; ++i) {
            for (int b = 0; b < 256; ++b) {
                std::string t = s;
                t[i] = static_cast<char>(b);
                const bool plain = try_pack_hex(t, want.data());
                ASSERT_EQ(pack_hex_words(t, got.data()), plain) << n << " at " << i << " " << b;
                if (plain) {
                    ASSERT_TRUE(std::equal(want.begin(), want.begin() + n / 2, got.begin())) << t;
                }
            }
        }
    }
}

TEST(EncoderFastPaths, ShortCopyCopiesExactlyAndSeesEveryNonAsciiByte) {
    for (std::size_t n = 0; n <= short_literal_max; ++n) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i)
            s += static_cast<char>('a' + i % 26);
        std::vector<std::uint8_t> to(n + 8, 0xEE);
        ASSERT_TRUE(copy_short_ascii(s, to.data())) << n;
        EXPECT_TRUE(std::equal(s.begin(), s.end(), to.begin(), [](char c, std::uint8_t b) {
            return static_cast<std::uint8_t>(c) == b;
        }));
        for (std::size_t i = n; i < to.size(); ++i)
            ASSERT_EQ(to[i], 0xEE) << "wrote past " << n;
        for (std::size_t i = 0; i < n; ++i) {
            for (int b : {0x80, 0xC3, 0xFF}) {
                std::string t = s;
                t[i] = static_cast<char>(b);
                EXPECT_FALSE(copy_short_ascii(t, to.data())) << n << " at " << i;
            }
        }
    }
}

// Non-ASCII literals take the full check: valid UTF-8 of every length travels, invalid is
// refused and leaves nothing behind.
TEST(EncoderFastPaths, LiteralsOfEveryLengthRoundTripAndInvalidUtf8IsRefused) {
    const auto t = make_record_type("T", {"s"});
    for (std::size_t n = 0; n <= 80; ++n) {
        for (const std::string unit : {"x", "\xC3\xA9", "0"}) {
            std::string s;
            while (s.size() < n)
                s += unit;
            std::vector<message> in;
            for (int i = 0; i < 3; ++i)
                in.push_back({make_record(t, {s}), {}});
            EXPECT_EQ(test::round_trip(in), in) << n << " " << unit;
        }
        if (n == 0) continue;
        std::string bad(n, 'a');
        bad[n / 2] = '\xFF';
        stream_encoder enc{encoder_options{}};
        byte_buffer out;
        EXPECT_EQ(enc.encode({make_record(t, {bad}), {}}, out),
                  make_error_code(proto_errc::invalid_utf8));
        EXPECT_EQ(out.size(), 1u);  // only the reset op the failure writes
    }
}

TEST(EncoderFastPaths, PrintHoldsEveryByteOfAShortString) {
    for (std::size_t n = 0; n <= whole_print_max; ++n) {
        const std::string s(n, 'q');
        for (std::size_t i = 0; i < n; ++i) {
            std::string t = s;
            t[i] = 'r';
            EXPECT_NE(string_print(s), string_print(t)) << n << " at " << i;
        }
    }
}

// Short strings (cached), longer ones (indexed only) and far more of them than the cache has
// slots, so slots collide; a small budget evicts all the time and resets come now and then.
TEST(EncoderFastPaths, ShortStringCacheAgreesWithTheIndexUnderEvictionAndReset) {
    encode_table table(8000);  // about 200 entries: over short_strings_from, and evicting
    string_lookup lookup;
    std::mt19937 rng(11);
    for (int step = 0; step < 300000; ++step) {
        const unsigned k = rng() % 5000;
        std::string s = std::to_string(k);
        if (k % 3 == 0) s += "-long-enough";  // over whole_print_max
        const auto plain = table.find_string(s);
        ASSERT_EQ(lookup.find(table, s, string_print(s)), plain) << step << " " << s;
        if (plain)
            table.use_string_id(*plain);
        else if (table.can_insert_string(s))
            table.insert_string(s);
        if (step % 70000 == 69999) table.reset();
    }
}

// A field's memo against values of every length that differ from the last one in a single
// byte (around the 4/8/16-byte word boundaries the print and comparisons read), and longer
// values that share length and last 8 bytes; a small table evicts the memo's entry.
TEST(EncoderFastPaths, FieldMemoTellsApartValuesThatDifferInOneByte) {
    const auto t = make_record_type("T", {"s", "n"});
    for (const std::uint64_t budget : {std::uint64_t{4} << 20, std::uint64_t{300}}) {
        decoder_limits limits;
        limits.table_budget = budget;
        std::vector<message> in;
        for (std::size_t n = 0; n <= 40; ++n) {
            const std::string base(n, 'm');
            for (std::size_t i = 0; i < n; ++i) {
                std::string other = base;
                other[i] = 'n';
                for (const auto& s : {base, base, other, other, base})
                    in.push_back({make_record(t, {s, static_cast<std::int64_t>(i)}), {}});
            }
        }
        for (int i = 0; i < 50; ++i)
            in.push_back({make_record(t, {(i % 2 ? "aaaa-" : "bbbb-") + std::string("12345678"),
                                          std::int64_t{i}}),
                          {}});
        EXPECT_EQ(test::round_trip(in, limits), in) << budget;
    }
}

// The digests of the encoder as it was before its fast paths (commit 3059bdc, built with
// tests/bench/codec_digest): the same bytes and the same table account, message for message.
// The small and tiny tables' were taken again when entries came to be charged what holding
// them costs the receiver (docs/PROTOCOL.md section 5): the same budgets hold fewer entries.
TEST(EncoderFastPaths, OutputIsByteForByteTheEncoderBeforeThem) {
    const std::pair<std::string_view, std::string_view> cases[] = {
        {"person", "default"},    {"person", "tiny-table"},    {"person", "columns"},
        {"events", "default"},    {"events", "never"},         {"events", "small-table"},
        {"events", "tiny-table"}, {"events", "ref-allowance"}, {"events", "transient"},
        {"events", "columns"},    {"graph", "default"},        {"graph", "tiny-table"},
        {"blobs", "default"},     {"blobs", "tiny-table"},     {"blobs", "columns"},
    };
    const std::string_view want[] = {
        "person  default               20047 7ea617c17265d79b hits 9998 misses 6 inserts 7 "
        "evictions 0 failures 0\n",
        "person  tiny-table           264888 6b44f9c9ba5c07d5 hits 0 misses 30000 inserts 20408 "
        "evictions 20406 failures 0\n",
        "person  columns               20047 9b4450f54b3f0545 hits 9998 misses 6 inserts 7 "
        "evictions 0 failures 0\n",
        "events  default              360533 3a434d80b45a50ba hits 14765 misses 10243 inserts 904 "
        "evictions 0 failures 0\n",
        "events  never                397856 8632cb911041487a hits 14766 misses 10242 inserts "
        "10243 evictions 0 failures 0\n",
        "events  small-table          425727 a2e667958b2dc248 hits 4935 misses 20073 inserts 1414 "
        "evictions 1399 failures 0\n",
        "events  tiny-table           765447 5d81a462528c4815 hits 0 misses 65000 inserts 40642 "
        "evictions 40640 failures 0\n",
        "events  ref-allowance        391110 0962da42e009cedb hits 9966 misses 10243 inserts 904 "
        "evictions 0 failures 0\n",
        "events  transient            344227 a130b8514c1b599e hits 9965 misses 10042 inserts 703 "
        "evictions 0 failures 0\n",
        "events  columns              360533 81b575a4648e7a02 hits 14765 misses 10243 inserts 904 "
        "evictions 0 failures 0\n",
        "graph   default              130359 7723f0d10bf9cd6c hits 0 misses 7 inserts 9 "
        "evictions 0 failures 0\n",
        "graph   tiny-table           203331 a84c0a19897122e8 hits 0 misses 15197 inserts 15197 "
        "evictions 15195 failures 0\n",
        "blobs   default             2051722 8a3a3497de90267c hits 0 misses 205 inserts 106 "
        "evictions 0 failures 0\n",
        "blobs   tiny-table          2054780 326c2c7469bb3776 hits 0 misses 700 inserts 600 "
        "evictions 598 failures 0\n",
        "blobs   columns             2051722 607bfee58e3fa7f6 hits 0 misses 205 inserts 106 "
        "evictions 0 failures 0\n",
    };
    static_assert(std::size(cases) == std::size(want));
    for (std::size_t i = 0; i < std::size(cases); ++i)
        EXPECT_EQ(codec_digest::run(cases[i].first, 5000, cases[i].second), want[i]);
}

}  // namespace
}  // namespace objwire
