#include "daemon/sinks/forward_sink.hpp"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <objwire/connection.hpp>

#include "daemon/sinks/held_memory.hpp"

namespace objwire::daemon {
namespace {

using namespace std::chrono_literals;

// A rough size of a message in memory, for the session's batch splitting.
std::size_t approximate_bytes(const value& v) {
    std::size_t n = 16;
    if (auto* s = v.get_if<std::string>()) return n + s->size();
    if (auto* b = v.get_if<bytes>()) return n + b->data.size();
    if (auto* l = v.get_if<lazy_value>()) return n + l->stored().size();
    if (auto* l = v.get_if<list>())
        for (const auto& e : *l)
            n += approximate_bytes(e);
    if (auto* m = v.get_if<map>())
        for (const auto& [k, e] : *m)
            n += k.size() + approximate_bytes(e);
    if (auto* r = v.get_if<record>())
        for (const auto& e : r->fields)
            n += approximate_bytes(e);
    return n;
}

std::size_t approximate_bytes(const message& m) {
    std::size_t n = approximate_bytes(m.root);
    for (const auto& o : m.objects)
        n += approximate_bytes(o);
    return n;
}

class forward_stream final : public sink_stream {
  public:
    forward_stream(config::client_settings hop, std::shared_ptr<hop_monitor> monitor,
                   std::shared_ptr<std::atomic<std::int64_t>> open_hops)
        : hop_(std::move(hop)), monitor_(std::move(monitor)), open_hops_(std::move(open_hops)) {
        worker_ = std::thread([this] { run(); });
    }
    ~forward_stream() override {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_one();
        worker_.join();
    }

    std::error_code add(const message& m) override {
        bytes_ += approximate_bytes(m);
        memory_.add(m);
        open_.push_back(m);
        return {};
    }
    bool empty() const override { return open_.empty(); }
    std::size_t bytes() const override { return bytes_; }
    std::size_t memory() const override { return memory_.bytes(); }
    void mark() override {
        mark_ = {open_.size(), bytes_};
        memory_.mark();
    }
    void rollback() override {
        if (open_.size() <= mark_.first) return;
        open_.resize(mark_.first);
        bytes_ = mark_.second;
        memory_.rollback();
    }

    std::error_code commit(std::uint64_t, std::uint64_t, durable_handler on_durable) override {
        {
            std::lock_guard lock(mutex_);
            if (failed_) return failed_;
            queue_.push_back({std::move(open_), std::move(on_durable)});
        }
        open_.clear();
        bytes_ = 0;
        memory_.clear();
        mark_ = {};
        wake_.notify_one();
        return {};
    }

  private:
    // A deque, not a vector: no doubling to leave room behind, so memory_ is what it holds.
    using message_queue = std::deque<message>;
    struct batch {
        message_queue messages;
        durable_handler on_durable;
    };
    struct in_flight {
        std::uint64_t acked_at = 0;  // durable once the hop acknowledged this many objects
        durable_handler on_durable;
    };

    void run() {
        client::connection hop(hop_, "objwired forward");
        std::unique_lock lock(mutex_);
        for (;;) {
            while (!queue_.empty() && !failed_) {
                batch b = std::move(queue_.front());
                queue_.pop_front();
                lock.unlock();
                send(hop, b);
                lock.lock();
            }
            lock.unlock();
            release_acked(hop);
            lock.lock();
            if (queue_.empty() && (in_flight_.empty() || failed_)) {
                if (stopping_) break;
                wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            } else if (queue_.empty()) {
                lock.unlock();
                if (auto ec = hop.poll(5ms)) fail(hop, ec);
                lock.lock();
            }
        }
        lock.unlock();
        if (opened_ && !failed_) {
            if (auto ec = hop.close()) fail(hop, ec);
            release_acked(hop);
        }
        set_open(false);
    }

    // The hop connection counted in open_hops_ while it is open: from its open until this
    // stream ends or gives the hop up.
    void set_open(bool open) {
        if (open == counted_) return;
        counted_ = open;
        *open_hops_ += open ? 1 : -1;
    }

    void send(client::connection& hop, batch& b) {
        if (!opened_) {
            if (auto ec = hop.open()) return fail(hop, ec, &b);
            monitor_->on_success();
            opened_ = true;
            set_open(true);
        }
        for (const auto& m : b.messages)
            if (auto ec = hop.send(m)) return fail(hop, ec, &b);
        if (auto ec = hop.flush()) return fail(hop, ec, &b);
        sent_ += b.messages.size();
        in_flight_.push_back({sent_, std::move(b.on_durable)});
    }

    // Batches complete in order, as the hop acknowledges in order.
    void release_acked(client::connection& hop) {
        const auto acked = hop.stats().objects_acked;
        while (!in_flight_.empty() && in_flight_.front().acked_at <= acked) {
            in_flight_.front().on_durable({});
            in_flight_.pop_front();
        }
    }

    // The hop is lost for good (after the client's own reconnects): every batch not yet
    // acknowledged there fails, so nothing of it is acknowledged upstream.
    void fail(client::connection& hop, std::error_code ec, batch* current = nullptr) {
        const std::string why = hop.last_error().empty() ? ec.message() : hop.last_error();
        // Logged by the monitor, one line per interval however many streams fail.
        if (hop_unreachable(ec))
            monitor_->on_failure(why);
        else  // this stream's own refusal: the hop stays up for the others
            spdlog::error("forward to {}:{}: stream refused by the next hop: {}", hop_.to_host,
                          hop_.to_port, why);
        std::deque<batch> queued;
        {
            std::lock_guard lock(mutex_);
            failed_ = ec;
            queued.swap(queue_);
        }
        if (current) current->on_durable(ec);
        for (auto& f : in_flight_)
            f.on_durable(ec);
        in_flight_.clear();
        for (auto& q : queued)
            q.on_durable(ec);
        set_open(false);
    }

    config::client_settings hop_;
    std::shared_ptr<hop_monitor> monitor_;
    message_queue open_;                        // the session's open batch (its strand only)
    std::pair<std::size_t, std::size_t> mark_;  // open_.size() and bytes_ at mark()
    std::size_t bytes_ = 0;
    message_memory memory_;  // what open_ holds in memory (the session charges it)
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<batch> queue_;
    std::error_code failed_;
    bool stopping_ = false;
    // The worker's own:
    std::deque<in_flight> in_flight_;
    std::uint64_t sent_ = 0;
    bool opened_ = false;
    bool counted_ = false;
    std::shared_ptr<std::atomic<std::int64_t>> open_hops_;
    std::thread worker_;
};

}  // namespace

std::unique_ptr<forward_sink> forward_sink::open(const config::daemon_settings& settings,
                                                 std::error_code& ec) {
    ec.clear();
    if (settings.forward_to.empty()) {
        spdlog::error("sink.kind = \"forward\" needs forward.to = \"HOST:PORT\"");
        ec = std::make_error_code(std::errc::invalid_argument);
        return nullptr;
    }
    config::client_settings hop;
    if (!settings.forward_client_config.empty()) {
        auto loaded = config::load_client_file(settings.forward_client_config);
        if (!loaded) {
            spdlog::error("forward.client_config: {}", loaded.error().message);
            ec = std::make_error_code(std::errc::invalid_argument);
            return nullptr;
        }
        hop = std::move(*loaded);
    }
    auto to = config::parse_host_port(settings.forward_to);
    if (!to) {
        spdlog::error("forward.to: {}", to.error().message);
        ec = std::make_error_code(std::errc::invalid_argument);
        return nullptr;
    }
    hop.to_host = to->host;
    hop.to_port = to->port;
    const std::string via = settings.listen_host + ":" + std::to_string(settings.listen_port);
    return std::unique_ptr<forward_sink>(new forward_sink(std::move(hop), via));
}

std::string forward_sink::describe() const {
    return "forward:" + hop_.to_host + ":" + std::to_string(hop_.to_port);
}

std::unique_ptr<sink_stream> forward_sink::open_stream(const std::string& sender_id) {
    auto hop = hop_;
    // Anonymous upstream streams stay anonymous (the client picks a random id per connection).
    if (!sender_id.empty()) hop.sender_id = sender_id + "@" + via_;
    return std::make_unique<forward_stream>(std::move(hop), monitor_, open_hops_);
}

std::string forward_sink::refuse_stream() {
    return monitor_->admit().why;
}

hop_monitor::hop_monitor(std::string hop) : hop_(hop), health_(std::move(hop)) {}

hop_health::admission hop_monitor::admit() {
    std::lock_guard lock(mutex_);
    const auto now = hop_health::clock::now();
    auto a = health_.admit(now);
    log(now);
    return a;
}

void hop_monitor::on_failure(const std::string& why) {
    std::lock_guard lock(mutex_);
    const auto now = hop_health::clock::now();
    health_.on_failure(why, now);
    log(now);
}

void hop_monitor::on_success() {
    std::lock_guard lock(mutex_);
    if (const auto failed = health_.on_success(); failed > 0)
        spdlog::warn("forward to {}: reachable again after {} failed attempts", hop_, failed);
}

void hop_monitor::log(hop_health::clock::time_point now) {
    if (auto line = health_.take_log(now)) spdlog::error("{}", *line);
}

}  // namespace objwire::daemon
