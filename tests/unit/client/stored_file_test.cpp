// client::stored_file (include/objwire/stored_file.hpp): a file of blocks read a chunk at a time
// gives every message with its offset, sender and time, across chunk boundaries and blocks
// larger than a chunk; a torn tail or a damaged block is an error after the messages before it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <objwire/stored_file.hpp>

#include "proto/journal_block.hpp"

namespace objwire::client {
namespace {

using bytes_t = std::vector<std::uint8_t>;

message text_message(std::uint64_t i, std::size_t pad) {
    return {list{static_cast<std::int64_t>(i), std::string(pad, static_cast<char>('a' + i % 26))}};
}

class stored_file_test : public ::testing::Test {
  protected:
    void SetUp() override {
        path_ = (std::filesystem::temp_directory_path() /
                 ("objwire-stored-file-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".owj"))
                    .string();
        // 300 blocks of 7 KiB-ish messages (2 MiB in all: chunk boundaries fall inside
        // blocks), then one block of a 1.5 MiB message (larger than a chunk), then small ones.
        std::uint64_t offset = 0;
        const auto add = [&](std::size_t messages, std::size_t pad, const std::string& sender) {
            journal_block_writer w(sender);
            for (std::size_t i = 0; i < messages; ++i)
                ASSERT_FALSE(w.add(text_message(offset + i, pad)));
            auto b = w.finish(1, 1, 1700000000000 + offset);
            seal_journal_block(b, offset);
            starts_.push_back(bytes_.size());
            bytes_.insert(bytes_.end(), b.begin(), b.end());
            offset += messages;
        };
        for (int b = 0; b < 300; ++b)
            add(1, 7000, "many");
        add(1, 1536 * 1024, "large");
        for (int b = 0; b < 3; ++b)
            add(4, 10, "small");
        messages_ = offset;
    }
    void TearDown() override { std::filesystem::remove(path_); }

    void write(std::span<const std::uint8_t> bytes) {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size()));
    }
    // Every message of the file, checked in order; the error (if any) after them.
    std::uint64_t read_all(std::string& error) {
        stored_file f(path_);
        EXPECT_FALSE(f.open()) << f.last_error();
        stored_message m;
        std::uint64_t n = 0;
        while (f.next(m)) {
            EXPECT_EQ(m.offset, n);
            const auto* fields = m.value.root.get_if<list>();
            EXPECT_TRUE(fields && !fields->empty() && fields->front().get_if<std::int64_t>() &&
                        *fields->front().get_if<std::int64_t>() == static_cast<std::int64_t>(n))
                << "offset " << n;
            EXPECT_EQ(m.time_ms, 1700000000000 + starts_offset(n));
            ++n;
        }
        error = f.error() ? f.last_error() : "";
        return n;
    }
    // The first offset of the block holding offset n.
    std::uint64_t starts_offset(std::uint64_t n) const {
        if (n < 301) return n;
        return 301 + (n - 301) / 4 * 4;
    }

    std::string path_;
    bytes_t bytes_;
    std::vector<std::size_t> starts_;
    std::uint64_t messages_ = 0;
};

TEST_F(stored_file_test, reads_every_message_across_chunks_and_large_blocks) {
    write(bytes_);
    std::string error;
    EXPECT_EQ(read_all(error), messages_);
    EXPECT_EQ(error, "");
}

TEST_F(stored_file_test, a_torn_tail_is_an_error_after_the_whole_blocks) {
    const std::size_t last = starts_.back();
    for (const std::size_t cut : {last + 3, last + 60, bytes_.size() - 1}) {
        write(std::span(bytes_).first(cut));
        std::string error;
        EXPECT_EQ(read_all(error), messages_ - 4) << "cut at " << cut;
        const std::string want =
            "at byte " + std::to_string(last) + ": the file ends inside a block: " +
            (cut - last < journal_block_header_size ? "short block header" : "short block payload");
        EXPECT_NE(error.find(want), std::string::npos) << error;
    }
}

TEST_F(stored_file_test, a_damaged_block_is_an_error_after_the_blocks_before_it) {
    auto bytes = bytes_;
    const std::size_t large = starts_[300];
    bytes[large + 1000] ^= 0x40;  // inside the large block's payload
    write(bytes);
    std::string error;
    EXPECT_EQ(read_all(error), 300u);
    EXPECT_NE(error.find("at byte " + std::to_string(large) +
                         ": not a journal block: block checksum mismatch"),
              std::string::npos)
        << error;
}

}  // namespace
}  // namespace objwire::client
