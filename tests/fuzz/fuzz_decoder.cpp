// Fuzz target: the value decoder with a live reference table (proto/decoder.hpp). One
// stream_decoder is fed several payloads in a row, as a receiver feeds it the frames of one
// connection, so table entries inserted by one payload are referenced, evicted or reset by the
// next. Whatever the bytes: no crash, no read outside the payload, the first error sticks, and
// every message that decodes re-encodes under the same limits to a payload that decodes to the
// same JSON text. A second decoder walks the same payloads in checking mode
// (stream_decoder::check_payload): it must return the same error and message count and keep
// the same table.
//
// Input: one knob byte (bit 0: small limits, so budgets, depth and counts are reached), then
// payloads separated by fuzz::separator.
#include <string>

#include "fuzz_support.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/json_writer.hpp"

using namespace objwire;

namespace {

decoder_limits limits_for(std::uint8_t knob) {
    decoder_limits l;
    if (knob & 1) {
        l.table_budget = 256;
        l.max_depth = 8;
        l.max_string_bytes = 64;
        l.max_elements = 16;
        l.max_frame_bytes = 4096;
    }
    return l;
}

// Every object reference names an object of the message; records have one value per field.
bool well_formed(const value& v, const message& m) {
    if (auto r = v.get_if<object_ref>()) return r->index < m.objects.size();
    if (auto l = v.get_if<list>()) {
        for (const auto& e : *l)
            if (!well_formed(e, m)) return false;
    } else if (auto mp = v.get_if<map>()) {
        for (const auto& [k, e] : *mp)
            if (!well_formed(e, m)) return false;
    } else if (auto r = v.get_if<record>()) {
        if (!r->type || r->type->fields.size() != r->fields.size()) return false;
        for (const auto& e : r->fields)
            if (!well_formed(e, m)) return false;
    }
    return true;
}

void check_round_trip(const message& m, const decoder_limits& limits) {
    encoder_options opts;
    opts.peer = limits;
    stream_encoder enc(opts);
    byte_buffer buf;
    FUZZ_CHECK(!enc.encode(m, buf));
    stream_decoder dec(limits);
    std::string again;
    std::size_t n = 0;
    FUZZ_CHECK(!dec.decode_payload(buf.span(), [&](message&& back) {
        append_json(back, again);
        ++n;
    }));
    FUZZ_CHECK(n == 1);
    FUZZ_CHECK(again == to_json(m));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const decoder_limits limits = limits_for(data[0]);
    stream_decoder dec(limits);
    stream_decoder checker(limits);
    std::error_code first_error;
    for (auto payload : fuzz::split({data + 1, size - 1})) {
        std::uint64_t decoded = 0;
        auto ec = dec.decode_payload(payload, [&](message&& m) {
            ++decoded;
            FUZZ_CHECK(well_formed(m.root, m));
            for (const auto& o : m.objects)
                FUZZ_CHECK(well_formed(o, m));
            check_round_trip(m, limits);
        });
        if (first_error && !payload.empty())
            FUZZ_CHECK(ec == first_error);  // poisoned
        else if (ec)
            first_error = ec;
        FUZZ_CHECK(dec.table().bytes <= limits.table_budget);
        std::uint64_t checked = 0;
        FUZZ_CHECK(checker.check_payload(payload, checked) == ec);
        FUZZ_CHECK(checked == decoded);
        const auto &a = dec.table(), &b = checker.table();
        FUZZ_CHECK(a.bytes == b.bytes && a.entries == b.entries && a.hits == b.hits &&
                   a.misses == b.misses && a.evictions == b.evictions);
    }
    return 0;
}
