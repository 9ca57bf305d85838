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

template <class T>
asio::awaitable<T> await_answer(std::future<T> answer, std::shared_ptr<asio::steady_timer> wake,
                                std::shared_ptr<std::atomic<bool>> done) {
    while (!done->load())
        co_await wake->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    co_return answer.get();
}

// Not a coroutine itself: the call starts here, and the coroutine it returns holds only the
// future and the wake-up. Callers pass a named lambda, never a temporary one inside the
// co_await expression: GCC 12 destroys such a temporary twice.
template <class F>
asio::awaitable<std::invoke_result_t<F>> blocking_call(const asio::any_io_executor& exec, F fn) {
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
    return await_answer(std::move(answer), std::move(wake), std::move(done));
}

}  // namespace objwire::daemon
