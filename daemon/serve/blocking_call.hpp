// A call that blocks (a round trip to JetStream, bounded by its own timeout) awaited from a
// strand without blocking it: the call runs on its own thread, which wakes the waiting
// coroutine when it is done - no polling. If the coroutine is destroyed first, the future's
// destructor still waits for the thread, so nothing the call uses goes away under it.
#pragma once

#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <atomic>
#include <future>
#include <memory>
#include <type_traits>

namespace objwire::daemon {

template <class F>
asio::awaitable<std::invoke_result_t<F>> blocking_call(F fn) {
    auto exec = co_await asio::this_coro::executor;
    auto wake = std::make_shared<asio::steady_timer>(exec, asio::steady_timer::time_point::max());
    auto done = std::make_shared<std::atomic<bool>>(false);
    auto answer = std::async(std::launch::async, [fn = std::move(fn), wake, done]() mutable {
        auto result = fn();
        done->store(true);
        // Posted to the waiter's executor, so it runs after the waiter is waiting or has seen
        // `done`: never lost between the two.
        asio::post(wake->get_executor(), [wake] { wake->cancel(); });
        return result;
    });
    while (!done->load())
        co_await wake->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    co_return answer.get();
}

}  // namespace objwire::daemon
