// A two-stage pipeline for the CLI: a producer thread fills batches (JSON lines parsed into
// messages, for `objwire send` and `objwire encode`) while the calling thread consumes them
// (encodes them, writes them on the connection or to the file), so the two halves of the work
// use two cores. The batches are made once and swapped between the threads: a slot's storage is
// reused as it would be in one thread, there is one lock per batch rather than per object, and
// the producer runs at most `batches` ahead, so memory stays bounded whatever the speed of
// each side (a slow daemon slows the producer too).
//
//   batch_pipeline<my_batch> p(16);
//   p.run([&](my_batch& b) { ...fill b...; return more; },      // on its own thread
//         [&](my_batch& b) { ...use b...; return keep_going; });  // here, in order
//
// A producer that waits for its own input (a pipe) hands over the batch it has first, so what
// it read is used without waiting for more.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace objwire::client {

template <class Batch>
class batch_pipeline {
  public:
    // `batches` (at least 1) are made now and reused by run(); 2 let the threads overlap, and
    // enough of them that a batch has left the consumer's caches before it comes back to the
    // producer (see take_free()) make the overlap pay.
    explicit batch_pipeline(std::size_t batches)
        : slots_(batches < 1 ? 1 : batches),
          free_(slots_.size()),
          ready_(slots_.size()),
          producer_wake_at_(slots_.size() / 2 < 1 ? 1 : slots_.size() / 2) {
        for (auto& b : slots_)
            free_.push(&b);
    }
    batch_pipeline(const batch_pipeline&) = delete;
    batch_pipeline& operator=(const batch_pipeline&) = delete;

    // Runs produce(Batch&) on a thread of its own and consume(Batch&) on this one, batch by
    // batch in the order produced. `produce` fills the batch it is given (a batch comes back
    // as the consumer left it: the producer resets what it needs) and returns false when
    // that batch is the last. `consume` returns false to stop early: the producer is told to
    // stop and what it made after that is dropped. An exception on either side stops both and
    // is rethrown here once the producer's thread has ended. Runs once per pipeline.
    template <class Produce, class Consume>
    void run(Produce&& produce, Consume&& consume) {
        run(
            produce, consume, [] {}, std::chrono::nanoseconds::zero());
    }

    // As run(), and when the consumer has waited `idle_after` (> 0) for a batch, it calls
    // idle() once, then waits on: a consumer that holds a part of its work back (a connection's
    // open batch) lets it go when its input goes quiet.
    template <class Produce, class Consume, class Idle>
    void run(Produce&& produce, Consume&& consume, Idle&& idle,
             std::chrono::nanoseconds idle_after) {
        std::exception_ptr producer_failure;
        std::thread producer([&] {
            try {
                // Ends when produce() says it was the last batch, or when the consumer stopped.
                while (Batch* b = take_free()) {
                    const bool more = produce(*b);
                    hand_over(ready_, filled_, 1, b);  // to the consumer
                    if (!more) break;
                }
            } catch (...) {
                producer_failure = std::current_exception();
            }
            raise(closed_, filled_);  // no more batches
        });
        try {
            // Ends when the producer has closed the queue and every batch was consumed.
            while (Batch* b = take_ready(idle, idle_after)) {
                const bool go = consume(*b);
                hand_over(free_, room_, producer_wake_at_, b);  // back to the producer
                if (!go) break;
            }
        } catch (...) {
            raise(stopped_, room_);  // the producer stops at its next batch
            producer.join();
            throw;
        }
        raise(stopped_, room_);
        producer.join();
        if (producer_failure) std::rethrow_exception(producer_failure);
    }

    std::size_t batches() const { return slots_.size(); }
    // The most batches out of the free queue at once: held by the producer, queued, or held by
    // the consumer. Never more than batches().
    std::size_t peak_in_flight() const {
        std::lock_guard lock(mutex_);
        return peak_in_flight_;
    }
    // Batches handed from the producer to the consumer.
    std::size_t published() const {
        std::lock_guard lock(mutex_);
        return ready_.pushed();
    }

  private:
    // A fixed ring of batch pointers, oldest first.
    class fifo {
      public:
        explicit fifo(std::size_t capacity) : items_(capacity) {}
        std::size_t size() const { return size_; }
        std::size_t pushed() const { return pushed_; }  // in all
        void push(Batch* b) {
            items_[(head_ + size_) % items_.size()] = b;
            ++size_;
            ++pushed_;
        }
        Batch* pop() {
            Batch* b = items_[head_];
            head_ = (head_ + 1) % items_.size();
            --size_;
            return b;
        }

      private:
        std::vector<Batch*> items_;
        std::size_t head_ = 0;
        std::size_t size_ = 0;
        std::size_t pushed_ = 0;
    };

    // Producer: a free batch, waiting for the consumer to give one back; nullptr once stopped.
    // The batch given back the longest ago, not the last one: the producer overwrites what the
    // consumer has read, and a line the consumer still holds must first be taken from its core
    // (measured: `objwire encode` of the events file took 0.29 s and 0.42 s of CPU reusing the
    // last batch given back, 0.23 s and 0.34 s - one thread's CPU - reusing the oldest).
    Batch* take_free() {
        std::unique_lock lock(mutex_);
        if (free_.size() == 0)
            room_.wait(lock, [&] { return stopped_ || free_.size() >= producer_wake_at_; });
        if (stopped_) return nullptr;
        Batch* b = free_.pop();
        const std::size_t out = slots_.size() - free_.size();
        if (out > peak_in_flight_) peak_in_flight_ = out;
        return b;
    }
    // Puts `b` in `to` (ready_ for the consumer, free_ for the producer) and wakes the side
    // that waits on `cv` for it once `wake_at` batches are there.
    void hand_over(fifo& to, std::condition_variable& cv, std::size_t wake_at, Batch* b) {
        {
            std::lock_guard lock(mutex_);
            to.push(b);
            if (to.size() < wake_at) return;  // not yet worth a wake-up
        }
        cv.notify_one();
    }
    // Sets closed_ (the producer is done) or stopped_ (the consumer is) and wakes the other.
    void raise(bool& flag, std::condition_variable& cv) {
        {
            std::lock_guard lock(mutex_);
            flag = true;
        }
        cv.notify_one();
    }
    // Consumer: the next batch in order, waiting for the producer (calling idle() once the
    // wait reached idle_after, if > 0); nullptr once the producer closed the queue and every
    // batch was taken.
    template <class Idle>
    Batch* take_ready(Idle& idle, std::chrono::nanoseconds idle_after) {
        std::unique_lock lock(mutex_);
        auto filled = [&] { return closed_ || ready_.size() > 0; };
        if (idle_after.count() > 0 && !filled() && !filled_.wait_for(lock, idle_after, filled)) {
            lock.unlock();
            idle();
            lock.lock();
        }
        filled_.wait(lock, filled);
        if (ready_.size() == 0) return nullptr;
        return ready_.pop();
    }

    std::vector<Batch> slots_;
    mutable std::mutex mutex_;
    std::condition_variable room_;    // batches were given back, or stopped_
    std::condition_variable filled_;  // batches were filled, or closed_
    fifo free_;                       // batches the producer may fill, oldest given back first
    fifo ready_;                      // filled batches, oldest first
    // A producer that found no free batch sleeps until half of them are free, not one, so that
    // each of its sleeps (a futex call and a context switch, on a machine whose cores also run
    // the daemon) covers several batches. The consumer wakes for the first batch ready: while
    // it sleeps nothing reaches the daemon, whose core then idles (`send` of the events file,
    // 12 alternated runs: median 373 MB/s waking it at half, 390 at one). Both never wait at
    // once: the batches neither side holds are then all free or all ready.
    const std::size_t producer_wake_at_;
    std::size_t peak_in_flight_ = 0;
    bool closed_ = false;
    bool stopped_ = false;
};

}  // namespace objwire::client
