// The connection's mutex (client/lib/call_mutex.hpp): a try that finds it taken has the
// holder's unlock call back, once, and no such try is ever lost - the linger service's turns
// rely on it instead of looking again on a timer.
#include "client/lib/call_mutex.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace objwire::client {
namespace {

TEST(CallMutex, AFreeMutexIsTakenAndCallsNothingBack) {
    call_mutex m;
    int calls = 0;
    m.on_missed([&] { ++calls; });
    ASSERT_TRUE(m.try_lock_or_call_back());
    m.unlock();
    { std::lock_guard lock(m); }
    EXPECT_EQ(calls, 0);
}

TEST(CallMutex, AMissedTryIsCalledBackOnceByTheHoldersUnlock) {
    call_mutex m;
    std::atomic<int> calls{0};
    m.on_missed([&] { ++calls; });
    m.lock();
    bool got = true;
    std::thread([&] { got = m.try_lock_or_call_back(); }).join();
    EXPECT_FALSE(got);
    EXPECT_EQ(calls.load(), 0);  // not while the lock is held
    m.unlock();
    EXPECT_EQ(calls.load(), 1);
    m.lock();
    m.unlock();
    EXPECT_EQ(calls.load(), 1);
}

// One thread takes and releases the mutex in a loop, holding it a little each time; another
// tries it, and after each try that found it taken waits for the call back. A lost call back
// leaves the wait to its deadline and ends the test. Bounded: the holder stops after 1,000
// such tries or 2 million rounds, a wait lasts 10 s at most.
TEST(CallMutex, NoMissedTryIsLostUnderContention) {
    call_mutex m;
    std::atomic<bool> waiting{false};
    m.on_missed([&] { waiting = false; });
    std::atomic<int> missed{0};
    std::atomic<bool> done{false};  // the holder's rounds are over
    std::thread holder([&] {
        std::atomic<int> work{0};
        for (int i = 0; i < 2'000'000 && missed < 1'000; ++i) {
            std::lock_guard lock(m);
            for (int k = 0; k < 100; ++k)
                work.fetch_add(1, std::memory_order_relaxed);
        }
        done = true;
    });
    int lost = 0;
    while (!done) {
        waiting = true;
        if (m.try_lock_or_call_back()) {
            waiting = false;
            m.unlock();
            continue;
        }
        ++missed;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (waiting && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        if (waiting) {
            ++lost;
            break;
        }
    }
    holder.join();
    EXPECT_EQ(lost, 0) << "of " << missed << " tries that found the mutex taken";
    EXPECT_GE(missed.load(), 100);
}

}  // namespace
}  // namespace objwire::client
