// Writes the seed corpus of every fuzz target, made from valid streams, into DIR/<target>/:
//   make_seeds DIR
// scripts/fuzz.sh runs it before fuzzing (libFuzzer then grows DIR/<target>/ with what it
// finds), and ctest replays the seeds through each target in every build. Seeds are kept small
// (a few KiB) so that libFuzzer's default input length still applies.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <zlib.h>

#include "client/workloads/workloads.hpp"
#include "fuzz_support.hpp"
#include "proto/codec.hpp"
#include "proto/columns.hpp"
#include "proto/control.hpp"
#include "proto/encoder.hpp"
#include "proto/frame.hpp"
#include "proto/journal_block.hpp"
#include "proto/json_writer.hpp"
#include "proto/lazy_value.hpp"
#include "proto/metric_families.hpp"
#include "proto/read_client.hpp"

namespace fs = std::filesystem;
using namespace objwire;

namespace {

using bytes_t = std::vector<std::uint8_t>;

class corpus {
  public:
    corpus(const fs::path& dir, std::string target) : dir_(dir / target) {
        fs::create_directories(dir_);
    }
    // A seed: the knob byte (if any) followed by the parts, separated by fuzz::separator.
    void add(std::initializer_list<std::uint8_t> knob, const std::vector<bytes_t>& parts) {
        bytes_t seed(knob);
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (i > 0)
                seed.insert(seed.end(), std::begin(fuzz::separator), std::end(fuzz::separator));
            seed.insert(seed.end(), parts[i].begin(), parts[i].end());
        }
        char name[32];
        std::snprintf(name, sizeof name, "seed-%03d", n_++);
        std::ofstream(dir_ / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(seed.data()),
                   static_cast<std::streamsize>(seed.size()));
    }
    void add_text(std::initializer_list<std::uint8_t> knob, std::string_view text) {
        add(knob, {bytes_t(text.begin(), text.end())});
    }
    int count() const { return n_; }

  private:
    fs::path dir_;
    int n_ = 0;
};

bytes_t to_bytes(const byte_buffer& b) {
    return {b.data(), b.data() + b.size()};
}

decoder_limits small_limits() {
    decoder_limits l;
    l.table_budget = 256;
    l.max_depth = 8;
    l.max_string_bytes = 64;
    l.max_elements = 16;
    l.max_frame_bytes = 4096;
    return l;
}

// A lazy value holding another (docs/PROTOCOL.md 4.1).
value lazy_sample() {
    auto inner = pack_lazy(list{"inner", "inner", 7}, codec_id::zlib);
    auto outer =
        pack_lazy(map{{"packed", "packed text packed text"}, {"inner", *inner}}, codec_id::zlib);
    return *outer;
}

// A message with every kind of value: shared objects, a cycle, bytes, NaN, nesting, lazy.
message assorted() {
    auto point = make_record_type("Point", {"x", "y"});
    auto node = make_record_type("Node", {"name", "next"});
    message m;
    m.objects.push_back(make_record(point, {1, -200}));
    m.objects.push_back(make_record(node, {"loop", object_ref{1}}));
    m.root = map{{"points", list{object_ref{0}, object_ref{0}, make_record(point, {3.5, 1e300})}},
                 {"cycle", object_ref{1}},
                 {"blob", bytes{{0, 1, 2, 0xFF}}},
                 {"nan", std::numeric_limits<double>::quiet_NaN()},
                 {"text", "h\xC3\xA9llo \xE2\x82\xAC"},
                 {"deep", list{list{list{map{{"k", nullptr}, {"t", true}, {"f", false}}}}}},
                 {"big", std::numeric_limits<std::int64_t>::min()},
                 {"lazy", lazy_sample()}};
    return m;
}

// `count` messages of a workload per payload, `payloads` payloads, one live encoder: later
// payloads reference table entries of earlier ones.
// `payloads` payloads of `count` messages each, through one table; in column layout
// (docs/PROTOCOL.md 4.2) when `columns`.
std::vector<bytes_t> payloads(std::string_view workload, int payloads, int count,
                              const decoder_limits& limits = {}, bool columns = false) {
    encoder_options opts;
    opts.peer = limits;
    stream_encoder enc(opts);
    auto w = workloads::make(workload);
    std::vector<bytes_t> out;
    message m;
    for (int p = 0; p < payloads; ++p) {
        byte_buffer buf;
        column_sections sections;
        for (int i = 0; i < count; ++i) {
            w->next(m);
            if (columns ? enc.encode(m, buf, sections) : enc.encode(m, buf))
                std::fprintf(stderr, "make_seeds: %s refused\n", workload.data());
        }
        if (columns) {
            byte_buffer whole;
            sections.write_payload(buf.span(), whole);
            out.push_back(to_bytes(whole));
        } else {
            out.push_back(to_bytes(buf));
        }
    }
    return out;
}

bytes_t control_frame(frame_kind kind, void (*encode)(byte_buffer&)) {
    byte_buffer payload;
    encode(payload);
    byte_buffer frame;
    append_frame(frame, kind, 0, payload.span());
    return to_bytes(frame);
}

bytes_t data_frame(std::uint64_t sequence, const bytes_t& payload) {
    byte_buffer frame;
    append_frame(frame, frame_kind::data, sequence, payload);
    return to_bytes(frame);
}

// A data frame whose payload is `raw` deflated by zlib, announcing `raw_len`.
bytes_t zlib_frame(std::uint64_t sequence, const bytes_t& raw, std::size_t raw_len) {
    uLongf n = compressBound(static_cast<uLong>(raw.size()));
    bytes_t frame(frame_header_size + n);
    compress2(frame.data() + frame_header_size, &n, raw.data(), static_cast<uLong>(raw.size()), 9);
    frame.resize(frame_header_size + n);
    seal_frame(frame, frame_kind::data, sequence, codec_id::zlib,
               static_cast<std::uint32_t>(raw_len));
    return frame;
}

// Data frames of one zstd-stream context: the first starts it, the others continue it.
std::vector<bytes_t> zstd_stream_frames(std::uint64_t first_sequence,
                                        const std::vector<bytes_t>& raws) {
    frame_compressor z;
    std::vector<bytes_t> out;
    for (const auto& raw : raws) {
        byte_buffer frame;
        frame.resize(frame_header_size);
        if (z.compress(codec_id::zstd_stream, 3, raw, frame)) return {};
        seal_frame(frame.span(), frame_kind::data, first_sequence++, codec_id::zstd_stream,
                   static_cast<std::uint32_t>(raw.size()), z.stream_flags());
        out.push_back(to_bytes(frame));
    }
    return out;
}

bytes_t concat(const std::vector<bytes_t>& parts) {
    bytes_t out;
    for (const auto& p : parts)
        out.insert(out.end(), p.begin(), p.end());
    return out;
}

bytes_t with_kind(std::uint8_t kind, const bytes_t& payload) {
    bytes_t out{kind};
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

void encode_sample_hello(byte_buffer& b) {
    hello h;
    h.client_name = "seed";
    h.sender_id = "stream-1";
    encode_hello(h, b);
}
void encode_sample_welcome(byte_buffer& b) {
    welcome w;
    w.server_name = "objwired";
    w.sink = "objects.jsonl";
    w.credit_bytes = 64u << 20;  // field 11
    encode_welcome(w, b);
}
void encode_sample_ack(byte_buffer& b) {
    encode_ack({7, 700, 192, 4096}, b);
}
void encode_sample_error(byte_buffer& b) {
    encode_error({static_cast<std::uint32_t>(proto_errc::bad_sequence),
                  "frame sequence out of order: expected 1, got 5"},
                 b);
}

// A stored block of `count` messages of a workload from `first_offset`.
bytes_t stored_block(std::string_view workload, std::uint64_t first_offset, int count) {
    journal_block_writer w("seed");
    auto wl = workloads::make(workload);
    message m;
    for (int i = 0; i < count; ++i) {
        wl->next(m);
        if (w.add(m)) std::fprintf(stderr, "make_seeds: %s refused\n", workload.data());
    }
    auto block = w.finish(1, 1, 1700000000000);
    seal_journal_block(block, first_offset);
    return {block.begin(), block.end()};
}

bytes_t read_frame(frame_kind kind, std::uint64_t sequence, const bytes_t& payload) {
    byte_buffer frame;
    append_frame(frame, kind, sequence, payload);
    return to_bytes(frame);
}

bytes_t gap_payload(std::uint64_t first, std::uint64_t end) {
    byte_buffer b;
    encode_read_gap({first, end}, b);
    return to_bytes(b);
}

bytes_t read_ack_frame(std::uint64_t offset) {
    byte_buffer payload;
    encode_read_ack({offset}, payload);
    return read_frame(frame_kind::ack, 0, to_bytes(payload));
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_seeds DIR\n");
        return 1;
    }
    const fs::path dir = argv[1];

    const bytes_t hello_frame = control_frame(frame_kind::hello, encode_sample_hello);
    const bytes_t welcome_frame = control_frame(frame_kind::welcome, encode_sample_welcome);
    const bytes_t ack_frame = control_frame(frame_kind::ack, encode_sample_ack);
    const bytes_t error_frame = control_frame(frame_kind::error, encode_sample_error);
    bytes_t goodbye_frame;
    {
        byte_buffer b;
        append_frame(b, frame_kind::goodbye, 0, {});
        goodbye_frame = to_bytes(b);
    }
    const auto person = payloads("person", 3, 4);
    const auto events = payloads("events", 3, 2);
    const auto small = payloads("person", 3, 2, small_limits());
    const auto columned = payloads("events", 3, 2, {}, true);
    bytes_t assorted_payload;
    {
        stream_encoder enc({});
        byte_buffer buf;
        enc.encode(assorted(), buf);
        enc.reset(buf);
        enc.encode(assorted(), buf);
        assorted_payload = to_bytes(buf);
    }

    corpus frame(dir, "frame");
    frame.add({0x00}, {concat({hello_frame, welcome_frame, data_frame(1, person[0]),
                               data_frame(2, person[1]), ack_frame, error_frame, goodbye_frame})});
    frame.add({0x07}, {concat({hello_frame, goodbye_frame})});  // 64-byte frames, 4-byte reads
    auto half = data_frame(1, events[0]);
    half.resize(half.size() / 2);
    frame.add({0x20}, {half});

    corpus decoder(dir, "decoder");
    decoder.add({0x00}, person);
    decoder.add({0x00}, events);
    decoder.add({0x00}, {assorted_payload, person[0]});
    decoder.add({0x01}, small);
    decoder.add({0x00}, columned);

    corpus control(dir, "control");
    for (std::uint8_t k = 0; k < 4; ++k) {
        static void (*const encoders[])(byte_buffer&) = {encode_sample_hello, encode_sample_welcome,
                                                         encode_sample_ack, encode_sample_error};
        byte_buffer b;
        encoders[k](b);
        control.add({k}, {to_bytes(b)});
    }

    corpus metric_families(dir, "metric_families");
    {
        std::vector<metric_family> f(2);
        f[0] = {"objwire_objects_in_total",
                metric_type::counter,
                "Objects stored.",
                {{"objwire_objects_in_total", {}, std::uint64_t{5000}}}};
        f[1] = {"objwire_ack_latency_seconds",
                metric_type::histogram,
                "Ack latency.",
                {{"objwire_ack_latency_seconds_bucket", {{"le", "+Inf"}}, std::uint64_t{3}},
                 {"objwire_ack_latency_seconds_sum", {}, 0.25}}};
        byte_buffer b;
        encode_metric_families(f, b);
        metric_families.add({}, {to_bytes(b)});
    }

    corpus receiver(dir, "receiver");
    receiver.add({0x00 | (12 << 2)}, {concat({data_frame(1, person[0]), data_frame(2, person[1]),
                                              data_frame(3, person[2]), goodbye_frame})});
    receiver.add({0x00 | (3 << 2)}, {concat({data_frame(1, events[0]), data_frame(2, events[1])})});
    receiver.add({0x01 | (10 << 2)}, {with_kind(3, events[0]), with_kind(3, events[1]),
                                      with_kind(3, assorted_payload), with_kind(6, {})});
    receiver.add({0x03 | (5 << 2)}, {with_kind(3, small[0]), with_kind(3, small[1]),
                                     with_kind(3, small[2]), with_kind(6, {})});
    // Every codec offered; a zlib frame, then one whose payload inflates far past its raw_len.
    receiver.add({0x40 | (12 << 2)},
                 {concat({zlib_frame(1, events[0], events[0].size()),
                          zlib_frame(2, bytes_t(64 << 10, 0), 1024), goodbye_frame})});
    // Every codec offered; three zstd-stream frames of one context (the first with the start
    // flag, the others matching into it).
    if (auto stream = zstd_stream_frames(1, {events[0], events[1], events[0]}); !stream.empty()) {
        stream.push_back(goodbye_frame);
        receiver.add({0x40 | (12 << 2)}, {concat(stream)});
    }
    // The same in column layout: each section piece in its own context, a plain frame between.
    if (auto stream = zstd_stream_frames(1, {columned[0], columned[1]}); !stream.empty()) {
        stream.push_back(data_frame(3, columned[2]));
        stream.push_back(goodbye_frame);
        receiver.add({0x40 | (12 << 2)}, {concat(stream)});
    }

    corpus read_client(dir, "read_client");
    {
        const auto a = stored_block("person", 0, 4);
        const auto b = stored_block("events", 4, 3);
        read_client.add({0x01 | (12 << 3)},
                        {with_kind(7, a), with_kind(10, gap_payload(4, 9)),
                         with_kind(7, stored_block("events", 9, 2)), with_kind(6, {})});
        // A cursor reader, small limits: a block within them, then one over 16 objects.
        read_client.add({0x07 | (2 << 3)},
                        {with_kind(7, a), with_kind(6, {}),
                         with_kind(7, stored_block("person", 4, 20)), with_kind(6, {})});
        // A sender list in two parts, then the goodbye.
        byte_buffer part1, part2;
        encode_sender_list({{{"", 2, 8, 9, 3000}, {"a", 7, 0, 11, 4000}}}, part1);
        encode_sender_list({{{"b", 3, 5, 7, 5000}}}, part2);
        read_client.add(
            {0x81 | (3 << 3)},
            {with_kind(12, bytes_t(part1.span().begin(), part1.span().end())),
             with_kind(12, bytes_t(part2.span().begin(), part2.span().end())), with_kind(6, {})});
        // The raw stream, byte for byte as objwired sends it.
        read_client.add({0x00 | (5 << 3)},
                        {concat({welcome_frame, read_frame(frame_kind::journal_block, 1, a),
                                 read_frame(frame_kind::journal_block, 2, b), goodbye_frame})});
    }
    corpus journal_walk(dir, "journal_walk");
    {
        const auto a = stored_block("person", 0, 3);
        const auto b = stored_block("events", 3, 2);
        journal_walk.add({0x01 | (7 << 2)}, {concat({a, b})});
        // Offsets 5..8 missing before the last block: a jump with offsets checked.
        journal_walk.add({0x01 | (0 << 2)}, {concat({a, b, stored_block("events", 9, 1)})});
        auto torn = concat({a, b});
        torn.resize(torn.size() - 5);
        journal_walk.add({0x00 | (3 << 2)}, {torn});
        auto flipped = concat({a, b, a});
        flipped[a.size() + 60] ^= 0x20;
        journal_walk.add({0x01 | (15 << 2)}, {flipped});
        // A larger block, walked with the 4 KiB cap and reads of 64 bytes.
        journal_walk.add({0x02 | (63 << 2)}, {stored_block("person", 0, 100)});
    }
    corpus read_server(dir, "read_server");
    read_server.add({0x02 | (12 << 2)}, {concat({read_ack_frame(1), goodbye_frame})});
    read_server.add({0x42 | (0 << 2)}, {concat({read_ack_frame(1), read_ack_frame(2000)})});
    read_server.add({0x00 | (4 << 2)}, {goodbye_frame});
    read_server.add({0x03 | (3 << 2)}, {with_kind(4, {}), with_kind(6, {})});

    corpus jsonl(dir, "jsonl");
    for (std::string_view name : {"person", "events"}) {
        auto w = workloads::make(name);
        std::string text;
        for (int i = 0; i < 4; ++i) {
            w->next_json(text);
            text += '\n';
        }
        jsonl.add_text({}, text);
    }
    jsonl.add_text({}, to_json(assorted()) + "\r\n\n" + to_json(assorted()) + "\n");
    jsonl.add_text({},
                   "{\"$type\":\"Point\",\"x\":1,\"y\":2}\n"
                   "{\"any\":\"json\",\"list\":[1,2.5,null]}\n"
                   "{\"$id\":3,\"$type\":\"N\",\"next\":{\"$ref\":3}}\n"
                   "{\"$bytes\":\"AAEC/w==\"}\n{\"$float\":\"-inf\"}\n{\"$$x\":1}\n42\n");

    corpus config(dir, "config");
    const fs::path source = OBJWIRE_SOURCE_DIR;
    config.add_text({0x00}, read_file(source / "config" / "objwired.toml"));
    config.add_text({0x01}, read_file(source / "config" / "objwire.toml"));
    config.add_text({0x00},
                    "[server]\nlisten = \"[::1]:0\"\nshutdown_grace = \"2s\"\n"
                    "[limits]\nmax_frame_bytes = \"64KiB\"\ntable_budget = 0\n");
    config.add_text({0x01},
                    "client.to = \"localhost:9000\"\nbatch = { max_bytes = \"1MiB\", "
                    "linger = \"250us\" }\n");

    std::printf(
        "make_seeds: %d frame, %d decoder, %d control, %d metric_families, %d receiver, %d "
        "read_client, %d read_server, %d journal_walk, %d jsonl, %d config seeds in %s\n",
        frame.count(), decoder.count(), control.count(), metric_families.count(), receiver.count(),
        read_client.count(), read_server.count(), journal_walk.count(), jsonl.count(),
        config.count(), dir.c_str());
    return 0;
}
