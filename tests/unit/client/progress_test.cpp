// The progress line: its text, and that it stays silent when disabled (not a terminal).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "client/cli/progress.hpp"

namespace {

using objwire::client::progress_line;
using objwire::client::progress_sample;

TEST(progress_line, formats_counts_rates_compression_and_acks) {
    const progress_line p("send", "wire", false);
    const progress_sample s{1234567, 50'000'000, 617284, true};
    EXPECT_EQ(p.format(s, 2.0),
              "objwire send: 1,234,567 objects  617,283 obj/s  25.0 MB/s wire  compression on  "
              "acked 50%");
    EXPECT_EQ(p.format(progress_sample{}, 0.0),
              "objwire send: 0 objects  0 obj/s  0.0 MB/s wire  compression off  acked 0%");
}

// Disabled (stderr not a terminal): ticks never build a sample and nothing is written.
TEST(progress_line, disabled_line_never_samples_or_writes) {
    std::FILE* capture = std::tmpfile();
    ASSERT_NE(capture, nullptr);
    std::fflush(stderr);
    std::FILE* const original = stderr;
    stderr = capture;
    int sampled = 0;
    {
        progress_line p("bench", "wire", false);
        for (int i = 0; i < 100000; ++i) {
            p.tick([&] {
                ++sampled;
                return progress_sample{};
            });
        }
        p.draw(progress_sample{});
        p.clear();
        EXPECT_FALSE(p.enabled());
    }
    stderr = original;
    EXPECT_EQ(std::ftell(capture), 0L);
    std::fclose(capture);
    EXPECT_EQ(sampled, 0);
}

// Enabled: a drawn line starts with a carriage return and is erased by finish().
TEST(progress_line, enabled_line_draws_and_erases) {
    std::FILE* capture = std::tmpfile();
    ASSERT_NE(capture, nullptr);
    std::fflush(stderr);
    std::FILE* const original = stderr;
    stderr = capture;  // glibc lets stderr be reassigned; restored below
    {
        progress_line p("read", "wire", true);
        p.draw(progress_sample{10, 0, 10, false});
        p.finish();
        p.draw(progress_sample{20, 0, 20, false});  // after finish: nothing
    }
    stderr = original;
    std::rewind(capture);
    std::string text(256, '\0');
    text.resize(std::fread(text.data(), 1, text.size(), capture));
    std::fclose(capture);
    EXPECT_EQ(text.find("\robjwire read: 10 objects"), 0u) << text;
    EXPECT_NE(text.find("acked 100%\033[K\r\033[K"), std::string::npos) << text;
    EXPECT_EQ(text.find("20 objects"), std::string::npos) << text;
}

}  // namespace
