// The CLI's two-stage pipeline (client/pipeline/pipeline.hpp,
// client/pipeline/message_pipeline.hpp): batches arrive in order, each item once; the producer
// never runs more than the bound ahead; an early stop or an exception on either side ends both
// threads; and the JSON-lines reader of `send` and `encode` delivers through it exactly what one
// thread reading in turn delivers - the same messages with the same lines, and each bad line at its
// place with its line and column - also when it reads its input block by block (a file, a pipe that
// pauses) as `send` does.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "client/pipeline/input_file.hpp"
#include "client/pipeline/message_pipeline.hpp"
#include "client/pipeline/pipeline.hpp"
#include "client/pipeline/sent_lines.hpp"
#include "tests/support/wait_until.hpp"

namespace {

using objwire::json_error;
using objwire::message;
using objwire::client::batch_pipeline;
using objwire::client::message_batch;
using objwire::client::pipeline_options;

struct number_batch {
    std::vector<std::uint64_t> items;
};

// Fills batches of `per_batch` consecutive numbers until `total`.
struct counter_producer {
    std::uint64_t total;
    std::size_t per_batch;
    std::uint64_t next = 0;
    bool operator()(number_batch& b) {
        b.items.clear();
        while (b.items.size() < per_batch && next < total)
            b.items.push_back(next++);
        return next < total;
    }
};

// Waits (at most 10 s, a liveness bound, not a timing assertion) until `done` holds.
template <class Done>
bool eventually(Done&& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (int i = 0; i < 10'000'000 && std::chrono::steady_clock::now() < deadline; ++i) {
        if (done()) return true;
        std::this_thread::yield();
    }
    return done();
}

TEST(batch_pipeline, every_item_arrives_once_in_order) {
    for (std::size_t batches : {1u, 2u, 3u, 4u}) {
        batch_pipeline<number_batch> p(batches);
        counter_producer produce{10'007, 7};
        std::vector<std::uint64_t> seen;
        p.run(produce, [&](const number_batch& b) {
            seen.insert(seen.end(), b.items.begin(), b.items.end());
            return true;
        });
        ASSERT_EQ(seen.size(), 10'007u) << batches << " batches";
        for (std::uint64_t i = 0; i < seen.size(); ++i)
            ASSERT_EQ(seen[i], i) << batches << " batches";
        EXPECT_EQ(p.published(), 1430u);  // ceil(10,007 / 7)
        EXPECT_LE(p.peak_in_flight(), batches);
    }
}

// The producer runs ahead of a consumer that holds back, but never by more than the bound:
// at each fill, batches filled minus batches consumed is at most batches(), and it reaches it.
TEST(batch_pipeline, producer_never_runs_more_than_the_bound_ahead) {
    constexpr std::size_t bound = 3;
    batch_pipeline<number_batch> p(bound);
    std::atomic<std::uint64_t> filled{0}, consumed{0}, most_ahead{0};
    counter_producer count{2'000, 5};
    std::set<const number_batch*> distinct;
    bool reached = false;
    p.run(
        [&](number_batch& b) {
            const std::uint64_t ahead = ++filled - consumed.load();
            if (ahead > most_ahead.load()) most_ahead = ahead;
            return count(b);
        },
        [&](const number_batch& b) {
            distinct.insert(&b);
            // Hold the first batch until the producer has filled all it may, then a while
            // longer, so that a producer able to overrun the bound would do it.
            if (consumed.load() == 0) {
                reached = eventually([&] { return filled.load() >= bound; });
                for (int i = 0; i < 10'000; ++i)
                    std::this_thread::yield();
            }
            ++consumed;
            return true;
        });
    EXPECT_TRUE(reached);
    EXPECT_EQ(most_ahead.load(), bound);
    EXPECT_EQ(p.peak_in_flight(), bound);
    EXPECT_EQ(distinct.size(), bound);  // the same batches, swapped back and forth
    EXPECT_EQ(consumed.load(), 400u);
}

// The producer gets back the batch given back the longest ago (its lines have had time to
// leave the consumer's caches), so batches go round in a fixed cycle.
TEST(batch_pipeline, batches_are_reused_oldest_first) {
    batch_pipeline<number_batch> p(4);
    counter_producer count{3'000, 3};
    std::vector<const number_batch*> filled;
    p.run(
        [&](number_batch& b) {
            filled.push_back(&b);
            return count(b);
        },
        [&](const number_batch&) { return true; });
    ASSERT_EQ(filled.size(), 1'000u);
    for (std::size_t i = 4; i < filled.size(); ++i)
        ASSERT_EQ(filled[i], filled[i - 4]) << "fill " << i;
    EXPECT_EQ(std::set<const number_batch*>(filled.begin(), filled.end()).size(), 4u);
}

// A consumer that stops early stops the producer too: run() returns, and the producer made at
// most the bound more batches than were consumed.
TEST(batch_pipeline, consumer_stop_ends_the_producer) {
    batch_pipeline<number_batch> p(4);
    counter_producer produce{1'000'000'000, 10};
    std::uint64_t consumed = 0;
    p.run(produce, [&](const number_batch& b) {
        EXPECT_EQ(b.items.front(), consumed * 10);
        return ++consumed < 5;
    });
    EXPECT_EQ(consumed, 5u);
    EXPECT_LE(p.published(), consumed + p.batches());
}

TEST(batch_pipeline, producer_exception_comes_after_the_batches_before_it) {
    batch_pipeline<number_batch> p(2);
    counter_producer count{1'000, 10};
    std::uint64_t produced = 0, consumed = 0;
    EXPECT_THROW(p.run(
                     [&](number_batch& b) {
                         if (++produced == 6) throw std::runtime_error("producer failed");
                         return count(b);
                     },
                     [&](const number_batch&) {
                         ++consumed;
                         return true;
                     }),
                 std::runtime_error);
    EXPECT_EQ(consumed, 5u);
}

TEST(batch_pipeline, consumer_exception_stops_the_producer) {
    batch_pipeline<number_batch> p(2);
    counter_producer produce{1'000'000'000, 10};
    EXPECT_THROW(p.run(produce,
                       [&](const number_batch& b) -> bool {
                           if (b.items.front() == 30) throw std::runtime_error("consumer failed");
                           return true;
                       }),
                 std::runtime_error);
    EXPECT_LE(p.published(), 4u + p.batches());
}

// What `send` sees, one event per message or bad line.
struct seen_line {
    std::size_t line = 0;
    std::variant<message, json_error> what;
};

bool same(const seen_line& a, const seen_line& b) {
    if (a.line != b.line || a.what.index() != b.what.index()) return false;
    if (a.what.index() == 0) return std::get<0>(a.what) == std::get<0>(b.what);
    const auto &x = std::get<1>(a.what), &y = std::get<1>(b.what);
    return x.line == y.line && x.column == y.column && x.message == y.message;
}

// One thread reading in turn: what `objwire send` did before the pipeline.
std::vector<seen_line> read_in_turn(std::string_view text, bool stop_at_error) {
    std::vector<seen_line> out;
    objwire::jsonl_reader reader(text);
    message m;
    for (int i = 0; i < 1'000'000; ++i) {
        if (reader.next(m)) {
            out.push_back({reader.line(), m});
            continue;
        }
        if (!reader.error()) break;
        out.push_back({reader.error()->line, *reader.error()});
        if (stop_at_error) break;
    }
    return out;
}

std::vector<seen_line> read_pipelined(std::string_view text, bool stop_at_error, pipeline_options o,
                                      std::size_t stop_after = SIZE_MAX) {
    std::vector<seen_line> out;
    const std::size_t peak = objwire::client::read_jsonl_pipelined(
        text, stop_at_error,
        [&](const message& m, std::size_t line) {
            out.push_back({line, m});
            return out.size() < stop_after;
        },
        [&](const json_error& e) {
            out.push_back({e.line, e});
            return !stop_at_error && out.size() < stop_after;
        },
        o);
    EXPECT_LE(peak, o.batches);
    return out;
}

// Good lines of a few shapes, blank lines, and bad lines of several kinds, `lines` in all.
std::string mixed_text(int lines) {
    std::string text;
    for (int i = 1; i <= lines; ++i) {
        if (i % 97 == 0)
            text += R"({"$type":"Event","id":)" + std::to_string(i) + ",\n";  // cut short
        else if (i % 61 == 0)
            text += R"({"$ref":)" + std::to_string(i) + "}\n";  // unknown reference
        else if (i % 13 == 0)
            text += "  \n";
        else if (i % 2 == 0)
            text += R"({"$type":"Event","id":)" + std::to_string(i) + R"(,"host":"h)" +
                    std::to_string(i % 7) + R"(","ok":true})" + "\n";
        else
            text += "[" + std::to_string(i) + R"(,"x",{"k":)" + std::to_string(i * 3) + "}]\n";
    }
    return text;
}

void expect_same(const std::vector<seen_line>& got, const std::vector<seen_line>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_TRUE(same(got[i], want[i])) << "item " << i << ", line " << want[i].line;
}

TEST(jsonl_pipeline, skip_delivers_every_line_and_error_in_order) {
    const std::string text = mixed_text(2'000);
    const auto want = read_in_turn(text, false);
    ASSERT_GT(want.size(), 1'500u);
    std::size_t errors = 0;
    for (const auto& w : want)
        errors += w.what.index();
    ASSERT_EQ(errors, 20u + 32u);  // every 97th line cut short, every 61st a bad $ref
    for (auto o : {pipeline_options{}, pipeline_options{1, 1}, pipeline_options{2, 3},
                   pipeline_options{4, 256}, pipeline_options{3, 5'000}, pipeline_options{16, 8},
                   pipeline_options{4, 256, 300}}) {
        SCOPED_TRACE(std::to_string(o.batches) + " x " + std::to_string(o.batch_messages));
        expect_same(read_pipelined(text, false, o), want);
    }
}

TEST(jsonl_pipeline, stop_ends_at_the_first_bad_line) {
    const std::string text = mixed_text(2'000);
    const auto want = read_in_turn(text, true);
    ASSERT_EQ(want.back().line, 61u);
    ASSERT_EQ(want.back().what.index(), 1u);
    for (auto o : {pipeline_options{1, 1}, pipeline_options{2, 3}, pipeline_options{4, 256}}) {
        SCOPED_TRACE(std::to_string(o.batches) + " x " + std::to_string(o.batch_messages));
        expect_same(read_pipelined(text, true, o), want);
    }
}

// `send` stops at a refused message: nothing after it reaches the connection.
TEST(jsonl_pipeline, consumer_stop_delivers_nothing_after_it) {
    const std::string text = mixed_text(2'000);
    auto want = read_in_turn(text, false);
    want.resize(700);
    expect_same(read_pipelined(text, false, {2, 16}, 700), want);
}

// A batch ends at 256 messages or once batch_bytes of the text are read, whichever comes
// first, but holds at least one line: big objects cannot pile up in the batches in flight.
TEST(jsonl_pipeline, batches_are_bounded_in_bytes_too) {
    std::string text;
    for (int i = 0; i < 10; ++i)
        text += "[\"" + std::string(27, 'a' + i) + "\"]\n";  // 32 bytes a line
    text += "\"" + std::string(500, 'z') + "\"\n";           // more than a batch's bytes
    text += "1\n";
    objwire::jsonl_reader reader(text);
    message_batch b;
    const pipeline_options o{16, 256, 100};
    std::vector<std::size_t> sizes;
    bool more = true;
    for (int i = 0; i < 100 && more; ++i) {
        more = objwire::client::fill_from_reader(reader, true, o, b);
        sizes.push_back(b.size);
        EXPECT_FALSE(b.error);
    }
    // 4 lines reach 128 >= 100 bytes; twice; then the 2 short lines left and the 500-byte line
    // (the line that passes the limit ends the batch); then the last line and the end.
    EXPECT_EQ(sizes, (std::vector<std::size_t>{4, 4, 3, 1}));
    EXPECT_FALSE(more);
    expect_same(read_pipelined(text, false, o), read_in_turn(text, false));
}

TEST(jsonl_pipeline, empty_text_and_text_without_final_newline) {
    EXPECT_TRUE(read_pipelined("", false, {}).empty());
    EXPECT_TRUE(read_pipelined("\n\n  \n", false, {}).empty());
    const std::string text = "1\n2\n{\"a\":3}";
    expect_same(read_pipelined(text, false, {2, 2}), read_in_turn(text, false));
}

// --- reading the input block by block (client/pipeline/input_file.hpp line_blocks) ---

// A scratch file holding `text`, removed at the end.
struct temp_file {
    std::string path;
    explicit temp_file(std::string_view text) {
        char name[] = "/tmp/objwire_stream_test_XXXXXX";
        const int fd = ::mkstemp(name);
        EXPECT_GE(fd, 0);
        path = name;
        EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
        ::close(fd);
    }
    ~temp_file() { std::remove(path.c_str()); }
};

// Streams the files holding `texts`, in order, as `send FILE...` does; `places` (when given)
// gets each line's file (its index in `texts`) and line there.
std::vector<seen_line> stream_files(
    const std::vector<std::string>& texts, bool stop_at_error, std::size_t block,
    pipeline_options o = {}, std::vector<std::pair<std::size_t, std::uint64_t>>* places = nullptr) {
    std::vector<std::unique_ptr<temp_file>> files;
    std::vector<std::string> paths;
    for (const auto& text : texts)
        paths.push_back(files.emplace_back(std::make_unique<temp_file>(text))->path);
    objwire::client::line_blocks in(block);
    std::string error;
    EXPECT_TRUE(in.open(paths, error)) << error;
    std::vector<seen_line> out;
    const std::size_t peak = objwire::client::stream_jsonl_pipelined(
        in, stop_at_error,
        [&](const message& m, std::size_t line) {
            out.push_back({line, m});
            return true;
        },
        [&](const json_error& e) {
            out.push_back({e.line, e});
            return !stop_at_error;
        },
        [] {}, std::chrono::nanoseconds::zero(), o);
    EXPECT_LE(peak, o.batches);
    EXPECT_TRUE(in.error().empty()) << in.error();
    for (const auto& seen : out) {
        if (!places) break;
        const auto at = in.place(seen.line);
        const auto file = std::find(paths.begin(), paths.end(), at.name) - paths.begin();
        places->emplace_back(static_cast<std::size_t>(file), at.line);
    }
    return out;
}

std::vector<seen_line> stream_file(std::string_view text, bool stop_at_error, std::size_t block,
                                   pipeline_options o = {}) {
    return stream_files({std::string(text)}, stop_at_error, block, o);
}

// Whatever the block size, reading a file block by block gives what reading it whole gives:
// lines cut by a block's end, lines longer than a block, a byte order mark only at the start,
// \r\n, a last line without a newline, errors with their lines and columns.
TEST(jsonl_stream, blocks_of_any_size_read_as_the_whole_text) {
    const std::string long_line = "[\"" + std::string(3000, 'q') + "\"]\n";
    const std::string texts[] = {
        mixed_text(2'000),
        "\xEF\xBB\xBF{\"a\":1}\n[2]\r\n\n" + long_line +
            "{\"b\":\n3\n\xEF\xBB\xBF"
            "4\n" +
            long_line,
        "1\n2\n{\"a\":3}",
        "",
        "\n\n",
    };
    for (const auto& text : texts) {
        for (bool stop : {false, true}) {
            const auto want = read_in_turn(text, stop);
            for (std::size_t block : {std::size_t{1}, std::size_t{7}, std::size_t{100},
                                      std::size_t{4096}, std::size_t{1} << 20}) {
                SCOPED_TRACE("block " + std::to_string(block) + ", stop " + std::to_string(stop) +
                             ", text of " + std::to_string(text.size()) + " bytes");
                expect_same(stream_file(text, stop, block, {2, 16}), want);
            }
        }
    }
    const std::string text = mixed_text(5'000);
    expect_same(stream_file(text, false, 64 * 1024), read_in_turn(text, false));
}

// Several files are one stream: what reading their concatenation gives, a file's last line
// ending with it (newline or not), whatever the block size; each line's place names its file
// and its line there.
TEST(jsonl_stream, several_files_read_as_one_stream_of_their_lines) {
    const std::vector<std::string> texts = {"{\"a\":1}\n[2]\n", "{\"b\":", "", "3\n{\"c\":\n4"};
    const std::string joined = "{\"a\":1}\n[2]\n{\"b\":\n3\n{\"c\":\n4";
    const std::vector<std::pair<std::size_t, std::uint64_t>> want_places = {{0, 1}, {0, 2}, {1, 1},
                                                                            {3, 1}, {3, 2}, {3, 3}};
    for (std::size_t block : {std::size_t{1}, std::size_t{3}, std::size_t{4096}}) {
        SCOPED_TRACE("block " + std::to_string(block));
        std::vector<std::pair<std::size_t, std::uint64_t>> places;
        expect_same(stream_files(texts, false, block, {2, 16}, &places),
                    read_in_turn(joined, false));
        EXPECT_EQ(places, want_places);
    }
}

// Lines over limit_lines() are bad lines at their place, reported at the column after the
// limit, and the reading goes on after their newline with the right line numbers - whatever
// the block size, JSON or raw, a line cut by blocks or at the input's end.
TEST(jsonl_stream, lines_over_the_limit_are_bad_lines_and_skipped_to_their_newline) {
    const std::string over = "[\"" + std::string(5000, 'q') + "\"]";
    const std::string under = "[\"" + std::string(900, 'q') + "\"]";
    const std::string text = "1\n" + over + "\n2\n" + under + "\n" + over + "\n\n3\n" + over;
    for (const bool raw : {false, true}) {
        for (std::size_t block : {std::size_t{7}, std::size_t{100}, std::size_t{4096}}) {
            SCOPED_TRACE("block " + std::to_string(block) + (raw ? ", raw" : ", JSON"));
            temp_file f(text);
            objwire::client::line_blocks in(block);
            std::string error;
            ASSERT_TRUE(in.open(f.path, error)) << error;
            in.limit_lines(1000, "the test's limit");
            std::vector<std::size_t> lines, bad;
            auto on_message = [&](const message&, std::size_t line) {
                lines.push_back(line);
                return true;
            };
            auto on_error = [&](const json_error& e) {
                EXPECT_EQ(e.column, 1001u);
                EXPECT_NE(e.message.find("line longer than 1000 bytes (the test's limit)"),
                          std::string::npos)
                    << e.message;
                bad.push_back(e.line);
                return true;
            };
            if (raw)
                objwire::client::stream_raw_pipelined(
                    in, objwire::client::raw_line_reader("line", "text"), false, on_message,
                    on_error, [] {}, std::chrono::nanoseconds::zero());
            else
                objwire::client::stream_jsonl_pipelined(
                    in, false, on_message, on_error, [] {}, std::chrono::nanoseconds::zero());
            EXPECT_EQ(bad, (std::vector<std::size_t>{2, 5, 8}));
            // Raw sends the empty line 6 as text; JSON skips it.
            EXPECT_EQ(lines, raw ? (std::vector<std::size_t>{1, 3, 4, 6, 7})
                                 : (std::vector<std::size_t>{1, 3, 4, 7}));
            EXPECT_TRUE(in.error().empty()) << in.error();
        }
    }
}

// Waits (at most 20 s) for done().
template <class Done>
bool eventually_long(Done&& done) {
    return objwire::test::wait_until(done, std::chrono::seconds(20));
}

// A pipe whose writer pauses: the lines before the pause are delivered, and the consumer's
// idle() runs, while the writer still holds the rest back (no end of input yet) - the writer
// waits for both before it writes more, so a reader that waited for the end would fail here.
TEST(jsonl_stream, a_pausing_pipe_delivers_what_came_before_the_pause) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    objwire::client::line_blocks in;
    std::string error;
    const std::string path = "/dev/fd/" + std::to_string(fds[0]);
    ASSERT_TRUE(in.open(path, error)) << error;
    ::close(fds[0]);
    std::atomic<std::size_t> seen{0};
    std::atomic<int> idles{0};
    std::atomic<bool> delivered_before_rest{false};
    std::thread writer([&] {
        const std::string first = "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n";
        EXPECT_EQ(::write(fds[1], first.data(), first.size()), static_cast<ssize_t>(first.size()));
        delivered_before_rest = eventually_long([&] { return seen == 3 && idles > 0; });
        const std::string rest = "{\"n\":4}\n{\"n\":5}";
        EXPECT_EQ(::write(fds[1], rest.data(), rest.size()), static_cast<ssize_t>(rest.size()));
        ::close(fds[1]);
    });
    std::vector<std::size_t> lines;
    objwire::client::stream_jsonl_pipelined(
        in, false,
        [&](const message&, std::size_t line) {
            lines.push_back(line);
            ++seen;
            return true;
        },
        [](const json_error&) { return false; }, [&] { ++idles; }, std::chrono::milliseconds(1));
    writer.join();
    EXPECT_TRUE(delivered_before_rest);
    EXPECT_EQ(lines, (std::vector<std::size_t>{1, 2, 3, 4, 5}));
}

// cancel() ends a read that waits for input that never comes.
TEST(jsonl_stream, cancel_ends_a_waiting_read) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    objwire::client::line_blocks in;
    std::string error;
    ASSERT_TRUE(in.open("/dev/fd/" + std::to_string(fds[0]), error)) << error;
    ::close(fds[0]);
    std::thread canceller([&] {
        // The cancel comes late, once the read is likely waiting: its lateness is the input.
        objwire::test::pause_as_peer(std::chrono::milliseconds(20));
        in.cancel();
    });
    std::string_view lines;
    EXPECT_FALSE(in.next(lines, objwire::jsonl_reader::padding));
    canceller.join();
    ::close(fds[1]);
}

// The line of the last acknowledged object, through skipped lines and partial acks.
TEST(sent_lines, last_stored_line_follows_the_acks) {
    objwire::client::sent_lines s;
    EXPECT_EQ(s.last_stored_line(), 0u);
    for (std::uint64_t line : {1, 2, 3, 5, 6, 9})  // lines 4, 7, 8 bad or blank
        s.add(line);
    EXPECT_EQ(s.runs(), 3u);
    s.acked(0);
    EXPECT_EQ(s.last_stored_line(), 0u);
    s.acked(2);
    EXPECT_EQ(s.last_stored_line(), 2u);
    s.acked(4);
    EXPECT_EQ(s.last_stored_line(), 5u);
    EXPECT_EQ(s.runs(), 2u);
    s.add(10);
    s.acked(7);
    EXPECT_EQ(s.last_stored_line(), 10u);
    EXPECT_EQ(s.runs(), 0u);
}

}  // namespace
