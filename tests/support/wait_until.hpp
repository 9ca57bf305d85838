// How tests wait: on a condition with a deadline, never on "enough time has passed"; and the
// pauses that are a test's input (a slow peer, an idle sender), named as such. Standard
// library only, so the raw-socket attacker can use it too.
#pragma once

#include <chrono>
#include <thread>

namespace objwire::test {

// Checks `condition` until it holds or `limit` has passed; whether it held. The pause between
// checks only paces the polling: no caller depends on its length.
template <class Condition>
bool wait_until(Condition&& condition,
                std::chrono::steady_clock::duration limit = std::chrono::seconds(10),
                std::chrono::steady_clock::duration poll = std::chrono::milliseconds(5)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(poll);
    }
    return true;
}

// A pause that is the test's input, not a wait: a slow peer between its bytes, connections held
// open for a stretch, a sender idle for longer than a timeout. Nothing is awaited here; the
// time passing is what the test does to the other side.
inline void pause_as_peer(std::chrono::steady_clock::duration how_long) {
    std::this_thread::sleep_for(how_long);
}

}  // namespace objwire::test
