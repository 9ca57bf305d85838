// batch_capacity: what a reader's batch of frames takes, whatever the blocks, is at most
// write_batch_bytes and the largest frame - the bound docs/PROTOCOL.md 1.2 "Memory" promises
// for a stalled reader, which a doubling buffer broke (1.28 MiB of frames in 2 MiB).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "daemon/roles/reader_support.hpp"

namespace objwire::daemon::reader_support {
namespace {

constexpr std::size_t kib = 1024;

TEST(ReaderBatch, AFrameThatFitsLeavesTheCapacity) {
    EXPECT_EQ(batch_capacity(100 * kib, 300 * kib, 50 * kib), 300 * kib);
}

TEST(ReaderBatch, ALargeBlockAfterSmallOnesTakesExactlyWhatTheyNeed) {
    // Under the batch size, a 1 MiB block joins: exactly the frames, not the next power of 2.
    const std::size_t frame = 1024 * kib + 24;
    EXPECT_EQ(batch_capacity(200 * kib, 256 * kib + 24, frame), 200 * kib + frame);
}

TEST(ReaderBatch, ALargeFirstBlockTakesExactlyItsFrame) {
    const std::size_t frame = 1024 * kib + 24;
    EXPECT_EQ(batch_capacity(0, 512, frame), frame);
}

TEST(ReaderBatch, TheFirstFrameReservesABatch) {
    EXPECT_EQ(batch_capacity(0, 0, 100), write_batch_bytes + 100);
}

TEST(ReaderBatch, NeverMoreThanABatchAndTheLargestFrameWhateverTheBlocks) {
    // Batches gathered as the reader gathers them (frames join while under
    // write_batch_bytes), the capacity kept from one batch to the next.
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::size_t> small(24, 64 * kib);
    std::uniform_int_distribution<std::size_t> large(24, 1024 * kib + 24);
    std::size_t capacity = 0;
    std::size_t largest = 0;
    for (int batch = 0; batch < 2000; ++batch) {
        std::size_t size = 0;
        for (int frames = 0; size < write_batch_bytes && frames < 10'000; ++frames) {
            const std::size_t frame = (rng() % 8 == 0) ? large(rng) : small(rng);
            largest = std::max(largest, frame);
            capacity = batch_capacity(size, capacity, frame);
            size += frame;
            ASSERT_LE(size, capacity);
            ASSERT_LE(capacity, write_batch_bytes + largest) << "batch " << batch;
        }
    }
}

}  // namespace
}  // namespace objwire::daemon::reader_support
