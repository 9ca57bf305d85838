// The asynchronous calls of client::connection on an application's own io_context: every
// completion token (callback, use_awaitable, use_future, deferred) delivers; a coroutine whose
// async_send waits on a stopped (SIGSTOP) daemon leaves the application's 1 ms timer running;
// the send timeout and flush(timeout) end with timed_out against a stopped daemon, and the
// same connection delivers once the daemon goes on (SIGCONT); past flow.max_async_sends a
// send fails at once.
#include <gtest/gtest.h>

#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/deferred.hpp>
#include <asio/use_future.hpp>
#include <atomic>
#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include <objwire/typed.hpp>
#include "daemon_fixture.hpp"
#include "resume_support.hpp"

namespace objwire::test {
namespace {

using namespace std::chrono_literals;
using asio::experimental::as_tuple;

message tagged(std::int64_t sender, std::int64_t i) {
    static const auto type = make_record_type("Tagged", {"sender", "i"});
    return {make_record(type, {sender, i}), {}};
}

class AsyncSend : public daemon_fixture {};

TEST_F(AsyncSend, EveryCompletionTokenDeliversInOrder) {
    start();
    client::connection c(client_settings(), "async-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    asio::io_context io;
    int failures = 0, acked = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            for (int i = 0; i < 20; ++i) {  // awaited one by one
                auto [ec] = co_await c.async_send(tagged(0, i), as_tuple(asio::use_awaitable));
                ++(ec ? failures : acked);
            }
            // Many in flight at once: each completion comes when its message is durable.
            for (int i = 20; i < 300; ++i)
                c.async_send(tagged(0, i), asio::bind_executor(io, [&](std::error_code ec) {
                                 ++(ec ? failures : acked);
                             }));
            auto [fe] = co_await c.async_flush(as_tuple(asio::use_awaitable));
            if (fe) ++failures;
        },
        asio::detached);
    io.run();  // returns once every completion has run: they keep the io_context's work
    EXPECT_EQ(failures, 0) << c.last_error();
    EXPECT_EQ(acked, 300);
    EXPECT_EQ(c.unacknowledged(), 0u);
    // A future and a deferred operation, outside any event loop of ours.
    auto f = c.async_send(tagged(0, 300), asio::use_future);
    ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
    EXPECT_NO_THROW(f.get());
    auto op = c.async_send(tagged(0, 301), asio::experimental::deferred);
    std::promise<std::error_code> done;
    std::move(op)([&](std::error_code ec) { done.set_value(ec); });
    auto df = done.get_future();
    ASSERT_EQ(df.wait_for(30s), std::future_status::ready);
    EXPECT_FALSE(df.get());
    auto cf = c.async_close(asio::use_future);
    ASSERT_EQ(cf.wait_for(30s), std::future_status::ready);
    EXPECT_NO_THROW(cf.get()) << c.last_error();
    stop();
    expect_tagged_in_order(1, 302);
}

// The records tagged() builds, as a described struct.
struct Tagged {
    std::int64_t sender = 0;
    std::int64_t i = 0;
};
BOOST_DESCRIBE_STRUCT(Tagged, (), (sender, i))

// A struct goes through async_send like a message, and a completion runs with no lock of the
// connection held: its handler may call the connection again, a blocking send included.
TEST_F(AsyncSend, AStructIsSentAndAHandlerMayCallTheConnectionAgain) {
    start();
    client::connection c(client_settings(), "async-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    std::promise<std::error_code> resent;
    c.async_send(Tagged{0, 0}, [&](std::error_code ec) {
        resent.set_value(ec ? ec : c.send(tagged(0, 1)));  // from inside the completion
    });
    auto f = resent.get_future();
    ASSERT_EQ(f.wait_for(30s), std::future_status::ready) << "the handler's send never returned";
    EXPECT_FALSE(f.get()) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    stop();
    expect_tagged_in_order(1, 2);
}

// A batch is one job and one completion: it completes once every object in it is durable,
// for structs and for messages alike.
TEST_F(AsyncSend, ABatchCompletesOnceWhenEveryObjectInItIsDurable) {
    start();
    client::connection c(client_settings(), "async-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    std::vector<Tagged> structs;
    std::vector<message> messages;
    for (int i = 0; i < 1000; ++i) {
        structs.push_back({0, i});
        messages.push_back(tagged(0, 1000 + i));
    }
    int completions = 0;
    auto first = c.async_send_many(std::move(structs), asio::use_future);
    c.async_send_many(std::move(messages), [&](std::error_code ec) {
        ++completions;
        EXPECT_FALSE(ec);
        EXPECT_EQ(c.unacknowledged(), 0u);  // all 2,000 are durable when it runs
    });
    ASSERT_EQ(first.wait_for(30s), std::future_status::ready);
    EXPECT_NO_THROW(first.get());
    auto closed = c.async_close(asio::use_future);  // after the second batch's completion
    ASSERT_EQ(closed.wait_for(30s), std::future_status::ready);
    EXPECT_NO_THROW(closed.get()) << c.last_error();
    EXPECT_EQ(completions, 1);
    stop();
    expect_tagged_in_order(1, 2000);
}

// Completions come in the order their operations were started: a close started while a batch
// still waits for its acks (the journal syncs them after up to a second here) takes them in,
// and the batch completes before the close does.
TEST_F(AsyncSend, ACloseCompletesAfterTheSendsStartedBeforeIt) {
    settings_.journal_fsync_interval = 1000ms;
    start();
    client::connection c(client_settings(), "async-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    std::vector<message> batch;
    for (int i = 0; i < 100; ++i)
        batch.push_back(tagged(0, i));
    std::vector<std::string> order;  // by the worker thread, where plain callbacks run
    c.async_send_many(std::move(batch), [&](std::error_code ec) {
        EXPECT_FALSE(ec);
        order.push_back("batch");
    });
    std::promise<void> closed;
    c.async_close([&](std::error_code ec) {
        EXPECT_FALSE(ec);
        order.push_back("close");
        closed.set_value();
    });
    ASSERT_EQ(closed.get_future().wait_for(30s), std::future_status::ready);
    EXPECT_EQ(order, (std::vector<std::string>{"batch", "close"}));
    stop();
    expect_tagged_in_order(1, 100);
}

// A blocking close() right after asynchronous sends takes them along: they were started
// before it, so their objects are in the stream and acknowledged, and each completes without
// an error.
TEST_F(AsyncSend, ABlockingCloseTakesTheSendsStartedBeforeIt) {
    start();
    client::connection c(client_settings(), "async-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    std::atomic<int> ok{0}, failed{0};
    for (int i = 0; i < 10; ++i)
        c.async_send(Tagged{0, i}, [&](std::error_code ec) { ++(ec ? failed : ok); });
    c.async_send_many(std::vector<Tagged>{{0, 10}, {0, 11}},
                      [&](std::error_code ec) { ++(ec ? failed : ok); });
    ASSERT_FALSE(c.close()) << c.last_error();
    ASSERT_TRUE(wait_until([&] { return ok + failed == 11; }, 30s));
    EXPECT_EQ(failed, 0);
    stop();
    expect_tagged_in_order(1, 12);
}

struct Note {
    std::string text;
};
BOOST_DESCRIBE_STRUCT(Note, (), (text))

// A refusal ends the batch at that object: the ones before it are sent, and the error names
// the object's index and field.
TEST_F(AsyncSend, ARefusalEndsABatchAndNamesItsIndexAndField) {
    start();
    client::connection c(client_settings(), "async-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    std::vector<Note> notes{{"a"}, {"b"}, {"c"}, {"\xff"}, {"e"}};
    std::promise<std::error_code> done;
    c.async_send_many(std::move(notes), [&](std::error_code e) { done.set_value(e); });
    auto f = done.get_future();
    ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
    const auto ec = f.get();
    EXPECT_EQ(ec, make_error_code(proto_errc::invalid_utf8));
    EXPECT_NE(c.last_error().find("batch[3] Note.text: "), std::string::npos) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    stop();
    EXPECT_EQ(stored().size(), 3u);
}

// async_next hands out the stored objects and then waits, as a follower, for the next one -
// while the caller's own timer keeps firing on the loop that awaits it.
TEST_F(AsyncSend, AsyncNextFollowsWithoutHoldingTheCallersLoop) {
    start();
    {
        client::connection c(client_settings(), "async-test");
        ASSERT_FALSE(c.open()) << c.last_error();
        for (int i = 0; i < 50; ++i)
            ASSERT_FALSE(c.send(tagged(0, i)));
        ASSERT_FALSE(c.close()) << c.last_error();
    }
    client::read_options follow;
    follow.follow = true;
    client::reader r(client_settings(), follow);
    ASSERT_FALSE(r.open()) << r.last_error();
    asio::io_context io;
    std::vector<std::int64_t> got;
    int ticks = 0, ticks_while_waiting = 0;
    bool waiting = false, finished = false;
    std::thread late_sender;
    asio::steady_timer tick(io);
    std::function<void()> arm = [&] {
        tick.expires_after(1ms);
        tick.async_wait([&](std::error_code ec) {
            // A tick already due when cancel() ran comes with no error: the flag stops it.
            if (ec || finished) return;
            ++ticks;
            if (waiting && ++ticks_while_waiting == 20) {  // the 51st object, sent meanwhile
                late_sender = std::thread([&] {
                    client::connection c(client_settings(), "async-test");
                    if (!c.open()) c.send(tagged(0, 50)), c.close();
                });
            }
            arm();
        });
    };
    arm();
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            while (got.size() < 51) {
                waiting = got.size() == 50;
                auto [ec, m] = co_await r.async_next(as_tuple(asio::use_awaitable));
                if (ec || !m) break;
                got.push_back(m->value.root.get<record>().fields[1].get<std::int64_t>());
            }
            finished = true;
            tick.cancel();
        },
        asio::detached);
    io.run_for(60s);
    if (late_sender.joinable()) late_sender.join();
    ASSERT_EQ(got.size(), 51u) << r.last_error();
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i], static_cast<std::int64_t>(i));
    EXPECT_GE(ticks_while_waiting, 20);  // the loop ran while async_next waited
}

class StoppedDaemon : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("objwire-async-" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
        daemon_ = std::make_unique<child_objwired>(dir_ / "data", dir_ / "log", 0);
        ASSERT_TRUE(daemon_->start()) << daemon_->log();
        settings_.to_host = "127.0.0.1";
        settings_.to_port = daemon_->port();
        settings_.batch_linger = 5ms;
    }
    void TearDown() override {
        ::kill(daemon_->pid(), SIGCONT);
        daemon_.reset();
        std::filesystem::remove_all(dir_);
    }
    std::filesystem::path dir_;
    std::unique_ptr<child_objwired> daemon_;
    config::client_settings settings_;
};

// The acceptance test of the event loop: while async_send waits for a daemon that is stopped,
// the application's 1 ms timer keeps firing on the same thread.
TEST_F(StoppedDaemon, AsyncSendLeavesTheCallersTimerRunning) {
    client::connection c(settings_);
    ASSERT_FALSE(c.open()) << c.last_error();
    c.set_send_timeout(1500ms);
    ASSERT_EQ(::kill(daemon_->pid(), SIGSTOP), 0);
    asio::io_context io;
    asio::steady_timer tick(io);
    bool sending = true;
    std::error_code send_ec;
    int ticks_while_sending = 0;
    std::chrono::steady_clock::duration late_max{}, late_sum{};
    auto due = std::chrono::steady_clock::now();
    std::function<void()> arm = [&] {
        due += 1ms;
        tick.expires_at(due);
        tick.async_wait([&](std::error_code ec) {
            if (ec || !sending) return;
            const auto late = std::chrono::steady_clock::now() - due;
            late_max = std::max(late_max, late);
            late_sum += late;
            ++ticks_while_sending;
            arm();
        });
    };
    arm();
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            auto [ec] = co_await c.async_send(tagged(1, 0), as_tuple(asio::use_awaitable));
            send_ec = ec;
            sending = false;
            tick.cancel();
        },
        asio::detached);
    io.run();
    const auto us = [](auto d) {
        return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
    };
    std::cout << "1 ms timer over " << ticks_while_sending << " ticks while async_send waited: "
              << "mean " << us(late_sum / std::max(ticks_while_sending, 1)) << " us late, max "
              << us(late_max) << " us late\n";
    EXPECT_EQ(send_ec, client::client_errc::timed_out);
    EXPECT_NE(c.last_error().find("not acknowledged within 1500 ms"), std::string::npos)
        << c.last_error();
    // The send waited 1.5 s; a loop it blocked would have seen no tick at all.
    EXPECT_GT(ticks_while_sending, 100);
    EXPECT_EQ(c.unacknowledged(), 1u);
    // The daemon goes on: the same connection delivers what timed out and what follows.
    ASSERT_EQ(::kill(daemon_->pid(), SIGCONT), 0);
    auto f = c.async_send(tagged(1, 1), asio::use_future);
    ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
    EXPECT_NO_THROW(f.get()) << c.last_error();
    EXPECT_EQ(c.unacknowledged(), 0u);
    EXPECT_FALSE(c.close()) << c.last_error();
}

// flow.max_async_sends: with that many sends waiting on a stopped daemon, one more - a send
// or a batch - completes at once with too_many_in_flight and is not queued; once the daemon
// goes on, the waiting ones complete and the slots are free again. A batch larger than the
// limit goes when nothing else is in flight.
TEST_F(StoppedDaemon, PastMaxAsyncSendsOneFailsAtOnce) {
    settings_.max_async_sends = 10;
    client::connection c(settings_);
    ASSERT_FALSE(c.open()) << c.last_error();
    ASSERT_EQ(::kill(daemon_->pid(), SIGSTOP), 0);
    std::atomic<int> ok{0}, failed{0};
    for (int i = 0; i < 10; ++i)
        c.async_send(tagged(3, i), [&](std::error_code ec) { ++(ec ? failed : ok); });
    // The error comes back as a value, not as a future's exception: the worker's thread may free
    // that exception through reference counts in libstdc++, which ThreadSanitizer does not see.
    auto one_more = std::make_shared<std::promise<std::error_code>>();
    c.async_send(tagged(3, 10), [one_more](std::error_code ec) { one_more->set_value(ec); });
    auto one_more_ec = one_more->get_future();
    ASSERT_EQ(one_more_ec.wait_for(30s), std::future_status::ready);  // not held by the daemon
    EXPECT_EQ(one_more_ec.get(), client::client_errc::too_many_in_flight)
        << "the 11th send was queued";
    EXPECT_NE(c.last_error().find(
                  "10 objects of asynchronous sends in flight, options.max_async_sends = 10: "),
              std::string::npos)
        << c.last_error();
    auto batch =
        c.async_send_many(std::vector<message>{tagged(3, 11), tagged(3, 12)}, asio::use_future);
    ASSERT_EQ(batch.wait_for(30s), std::future_status::ready);
    EXPECT_THROW(batch.get(), std::system_error);
    EXPECT_EQ(ok + failed, 0);  // the ten still wait for their acks
    EXPECT_EQ(c.unacknowledged(), 10u);
    ASSERT_EQ(::kill(daemon_->pid(), SIGCONT), 0);
    ASSERT_TRUE(wait_until([&] { return ok + failed == 10; }, 30s));
    EXPECT_EQ(failed, 0) << c.last_error();
    std::vector<message> large;
    for (int i = 11; i < 26; ++i)
        large.push_back(tagged(3, i));
    auto all = c.async_send_many(std::move(large), asio::use_future);
    ASSERT_EQ(all.wait_for(30s), std::future_status::ready);
    EXPECT_NO_THROW(all.get()) << c.last_error();
    EXPECT_EQ(c.unacknowledged(), 0u);
    EXPECT_FALSE(c.close()) << c.last_error();
}

TEST_F(StoppedDaemon, FlushWithTimeoutReturnsTimedOutOnTime) {
    client::connection c(settings_);
    ASSERT_FALSE(c.open()) << c.last_error();
    ASSERT_EQ(::kill(daemon_->pid(), SIGSTOP), 0);
    ASSERT_FALSE(c.send(tagged(2, 0))) << c.last_error();
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(c.flush(300ms), client::client_errc::timed_out);
    // Generous: the deadline plus scheduling on a loaded machine, far below the 30 s ack wait.
    EXPECT_LT(std::chrono::steady_clock::now() - start, 300ms + 5s);
    EXPECT_NE(c.last_error().find("not acknowledged within 300 ms"), std::string::npos)
        << c.last_error();
    EXPECT_EQ(c.unacknowledged(), 1u);
    ASSERT_EQ(::kill(daemon_->pid(), SIGCONT), 0);
    EXPECT_FALSE(c.flush(30s)) << c.last_error();
    EXPECT_EQ(c.unacknowledged(), 0u);
    EXPECT_EQ(c.last_error(), "");
    EXPECT_FALSE(c.close()) << c.last_error();
}

// interrupt() still waits 500 ms for replies to what is in flight; interrupt_now() does not,
// and its error says so (the Python module's Ctrl-C ends a blocking call at once).
TEST_F(StoppedDaemon, InterruptNowEndsAWaitWithoutTheGraceForReplies) {
    for (const bool now : {false, true}) {
        client::connection c(settings_);
        ASSERT_FALSE(c.open()) << c.last_error();
        ASSERT_EQ(::kill(daemon_->pid(), SIGSTOP), 0);
        ASSERT_FALSE(c.send(tagged(1, 0))) << c.last_error();
        if (now)
            c.interrupt_now();
        else
            c.interrupt();
        EXPECT_EQ(c.close(), client::client_errc::interrupted);
        const bool graced = c.last_error().find("within 500 ms") != std::string::npos;
        EXPECT_EQ(graced, !now) << c.last_error();
        EXPECT_FALSE(c.is_open());
        ASSERT_EQ(::kill(daemon_->pid(), SIGCONT), 0);
    }
}

// open(retry_for): a daemon that starts while the client is already trying is reached; with
// none, open gives up once retry_for has passed.
TEST(OpenRetry, ReachesADaemonThatStartsMeanwhileAndGivesUpWithoutOne) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("objwire-open-retry-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    config::client_settings settings;
    settings.to_host = "127.0.0.1";
    settings.to_port = free_port();
    {
        client::connection lonely(settings);
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(lonely.open(300ms), client::client_errc::connect_failed);
        EXPECT_LT(std::chrono::steady_clock::now() - start, 300ms + 5s);
        EXPECT_NE(lonely.last_error().find("cannot connect"), std::string::npos)
            << lonely.last_error();
    }
    child_objwired daemon(dir / "data", dir / "log", settings.to_port);
    bool started = false;
    std::thread starter([&] { started = daemon.start(); });
    client::connection c(settings);
    const auto ec = c.open(30s);
    starter.join();
    ASSERT_TRUE(started) << daemon.log();
    ASSERT_FALSE(ec) << c.last_error();
    EXPECT_FALSE(c.send(tagged(3, 0))) << c.last_error();
    EXPECT_FALSE(c.close()) << c.last_error();
    daemon.kill_now();
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace objwire::test
