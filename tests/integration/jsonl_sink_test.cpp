// The JSON-lines sink on its own (files, no sockets): rotation by size and standard output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "daemon/sinks/jsonl_sink.hpp"

namespace objwire::daemon {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

class JsonlSink : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("objwire-jsonl-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

// A batch of `lines` lines, each 10 bytes: {"i":NNN}\n
std::string batch(int first, int lines) {
    std::string out;
    char buf[16];
    for (int i = first; i < first + lines; ++i) {
        std::snprintf(buf, sizeof buf, "{\"i\":%03d}\n", i);
        out += buf;
    }
    return out;
}

TEST_F(JsonlSink, RotatesBetweenBatchesAndKeepsTheNewestFiles) {
    const fs::path file = dir_ / "objects.jsonl";
    jsonl_sink sink({file, 100, 2});
    ASSERT_FALSE(sink.error());
    // 12 batches of 4 lines (40 bytes): two batches fit in 100 bytes, a third would not.
    for (int b = 0; b < 12; ++b)
        ASSERT_FALSE(sink.write(batch(b * 4, 4)));
    EXPECT_EQ(read_file(file), batch(40, 8));
    EXPECT_EQ(read_file(dir_ / "objects.jsonl.1"), batch(32, 8));
    EXPECT_EQ(read_file(dir_ / "objects.jsonl.2"), batch(24, 8));
    EXPECT_FALSE(fs::exists(dir_ / "objects.jsonl.3"));  // keep = 2: the oldest went
    for (const auto& e : fs::directory_iterator(dir_))
        EXPECT_LE(fs::file_size(e.path()), 100u) << e.path();
}

TEST_F(JsonlSink, AppendsToAnExistingFileAndCountsItsSize) {
    const fs::path file = dir_ / "objects.jsonl";
    std::ofstream(file) << batch(0, 8);  // 80 bytes from an earlier run
    jsonl_sink sink({file, 100, 3});
    ASSERT_FALSE(sink.write(batch(8, 4)));  // 80 + 40 > 100: rotate first
    EXPECT_EQ(read_file(dir_ / "objects.jsonl.1"), batch(0, 8));
    EXPECT_EQ(read_file(file), batch(8, 4));
}

TEST_F(JsonlSink, NeverRotatesWithoutALimit) {
    const fs::path file = dir_ / "objects.jsonl";
    jsonl_sink sink({file, 0, 5});
    for (int b = 0; b < 50; ++b)
        ASSERT_FALSE(sink.write(batch(b * 4, 4)));
    EXPECT_EQ(fs::file_size(file), 50u * 40u);
    EXPECT_FALSE(fs::exists(dir_ / "objects.jsonl.1"));
}

TEST_F(JsonlSink, DashWritesToStandardOutput) {
    const fs::path out = dir_ / "stdout.txt";
    std::fflush(stdout);
    const int saved = ::dup(STDOUT_FILENO);
    std::FILE* f = std::fopen(out.c_str(), "w");
    ASSERT_NE(f, nullptr);
    ::dup2(::fileno(f), STDOUT_FILENO);
    {
        jsonl_sink sink({"-", 10, 1});  // rotation does not apply to stdout
        EXPECT_EQ(sink.describe(), "jsonl:<stdout>");
        EXPECT_FALSE(sink.write(batch(0, 3)));
        EXPECT_FALSE(sink.write(batch(3, 3)));
    }
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
    std::fclose(f);
    EXPECT_EQ(read_file(out), batch(0, 6));
    EXPECT_FALSE(fs::exists(dir_ / "-"));
}

}  // namespace
}  // namespace objwire::daemon
