// Helpers of the journal unit tests: messages, blocks, a fresh directory per test, files as
// bytes, and a journal whose syncs are counted.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "daemon/store/journal.hpp"
#include "daemon/store/journal_reader.hpp"
#include "proto/journal_block.hpp"

namespace objwire::test {

inline record_type_ptr event_type() {
    static const auto t = make_record_type("Event", {"id", "host", "msg", "tags"});
    return t;
}

// A message with repeated strings (table hits inside a block), a unique string and a nested
// list, so blocks exercise the reference table.
inline message event(std::int64_t i) {
    return {make_record(event_type(), {i, "host-" + std::to_string(i % 3),
                                       "request " + std::to_string(i * 7919) + " done",
                                       list{"a", "b", 2.5, nullptr}}),
            {}};
}

inline std::vector<message> events(std::int64_t first, std::int64_t n) {
    std::vector<message> out;
    for (std::int64_t i = first; i < first + n; ++i)
        out.push_back(event(i));
    return out;
}

// One finished (unsealed) block of `msgs`.
inline std::vector<std::uint8_t> make_block(const std::vector<message>& msgs,
                                            const std::string& sender = "s",
                                            std::uint64_t first_seq = 1, std::uint64_t last_seq = 1,
                                            std::uint64_t time_ms = 1700000000000) {
    journal_block_writer w(sender);
    for (const auto& m : msgs)
        EXPECT_FALSE(w.add(m));
    auto b = w.finish(first_seq, last_seq, time_ms);
    return {b.begin(), b.end()};
}

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, std::span<const std::uint8_t> bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

// Every message of the journal in `dir`, read from `from`; fails the test on a reader error.
inline std::vector<message> read_all(const std::filesystem::path& dir, std::uint64_t from = 0) {
    daemon::journal_reader r(dir, from);
    std::vector<message> out;
    message m;
    while (r.next(m)) {
        EXPECT_EQ(r.offset(), from + out.size());
        out.push_back(m);
    }
    EXPECT_FALSE(r.error()) << r.error_detail();
    return out;
}

class journal_dir : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("objwire-journal-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    // Options with a counting sync function (that really syncs nothing: tests need counts).
    daemon::journal_options options(daemon::fsync_policy policy = daemon::fsync_policy::never) {
        daemon::journal_options o;
        o.dir = dir_;
        o.fsync = policy;
        o.sync = [this](int) {
            ++sync_calls_;
            return 0;
        };
        return o;
    }

    std::unique_ptr<daemon::journal> open(const daemon::journal_options& o) {
        std::error_code ec;
        auto j = daemon::journal::open(o, ec);
        EXPECT_TRUE(j) << ec.message();
        return j;
    }

    // Appends `msgs` as one block and returns the end offset.
    static std::uint64_t append(
        daemon::journal& j, const std::vector<message>& msgs,
        daemon::journal::durable_handler h = [](std::error_code) {}) {
        auto block = make_block(msgs);
        std::error_code ec;
        const auto end = j.append(block, std::move(h), ec);
        EXPECT_FALSE(ec) << ec.message();
        return end;
    }

    std::filesystem::path dir_;
    std::atomic<int> sync_calls_{0};
};

// A durable handler that a test can wait for, with a bound so a bug fails instead of hanging.
class durable_flag {
  public:
    daemon::journal::durable_handler handler() {
        return [this](std::error_code ec) { promise_.set_value(ec); };
    }
    bool ready() { return future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
    std::error_code wait() {
        if (future_.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
            ADD_FAILURE() << "durable handler not called within 60 s";
            return std::make_error_code(std::errc::timed_out);
        }
        return future_.get();
    }

  private:
    std::promise<std::error_code> promise_;
    std::future<std::error_code> future_ = promise_.get_future();
};

}  // namespace objwire::test
