#include "daemon/sinks/forward_sink.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <objwire/connection.hpp>

#include "daemon/sinks/held_memory.hpp"
#include "daemon/sinks/hop_phase.hpp"
#include "daemon/sinks/relay_path.hpp"

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

// The hop's own words for a refusal, without what the client library and the error frame put
// before them ("refused by peer: " and the code's message), so that a refusal passed back
// through a chain of relays does not gather one such prefix per relay.
std::string refusal_text(const std::string& last_error, std::error_code ec) {
    const std::string prefix = "refused by peer: " + ec.message() + ": ";
    return last_error.starts_with(prefix) ? last_error.substr(prefix.size()) : last_error;
}

std::size_t approximate_bytes(const message& m) {
    std::size_t n = approximate_bytes(m.root);
    for (const auto& o : m.objects)
        n += approximate_bytes(o);
    return n;
}

}  // namespace

// One stream's connection to the next hop, sent on by its own worker thread. Shared by the
// stream (its session's) and, once the stream is gone or its sender left, the sink's reaper,
// which cuts it when it is due and joins the worker: no session, and no stopping daemon,
// waits on the hop in a destructor.
class hop_link {
  public:
    using durable_handler = sink_stream::durable_handler;
    using clock = hop_phase::clock;
    // A deque, not a vector: no doubling to leave room behind, so memory is what it holds.
    using message_queue = std::deque<message>;
    struct batch {
        message_queue messages;
        durable_handler on_durable;
    };

    hop_link(config::client_settings hop, std::shared_ptr<hop_monitor> monitor,
             std::shared_ptr<std::atomic<std::int64_t>> open_hops)
        : hop_(std::move(hop)),
          monitor_(std::move(monitor)),
          phase_(hop_.connect_timeout, ack_window(hop_)),
          open_hops_(std::move(open_hops)),
          connection_(hop_, "objwired forward") {
        worker_ = std::thread([this] { run(); });
    }
    ~hop_link() { join(); }

    std::error_code commit(batch b) {
        {
            std::lock_guard lock(mutex_);
            if (failed_) return failed_;
            queue_.push_back(std::move(b));
            ++pending_;
        }
        wake_.notify_one();
        return {};
    }

    // Nobody waits for the acks of what is pending past `within` from now (the earliest
    // such time counts); a worker blocked in the connection is then cut.
    void abandon(std::chrono::milliseconds within) {
        std::lock_guard lock(mutex_);
        const auto due = clock::now() + within;
        if (pending_ > 0 && (!cut_due_ || due < *cut_due_)) cut_due_ = due;
        wake_.notify_one();
    }
    // The stream is gone: what is pending is given up at once; a link with nothing pending has
    // the drain window for its goodbye to the hop.
    void stop() {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        const auto due =
            clock::now() + (pending_ > 0 ? clock::duration{} : hop_phase::drain_window);
        if (!cut_due_ || due < *cut_due_) cut_due_ = due;
        wake_.notify_one();
    }
    // When the reaper must cut this link (none: not yet asked to).
    std::optional<clock::time_point> cut_due() {
        std::lock_guard lock(mutex_);
        if (done_ || cancelled_) return std::nullopt;
        return cut_due_;
    }
    // Ends every wait of the worker on the hop at once (the drain window, if any, has passed):
    // what is pending fails.
    void cut() {
        {
            std::lock_guard lock(mutex_);
            if (done_ || cancelled_) return;
            cancelled_ = true;
        }
        wake_.notify_one();
        connection_.interrupt_now();
    }
    bool retired() {
        std::lock_guard lock(mutex_);
        return stopping_;
    }
    bool done() {
        std::lock_guard lock(mutex_);
        return done_;
    }
    void join() {
        if (worker_.joinable()) worker_.join();
    }
    sink_stream::failure last_failure() {
        std::lock_guard lock(mutex_);
        return failure_;
    }

  private:
    struct in_flight {
        std::uint64_t acked_at = 0;  // durable once the hop acknowledged this many objects
        durable_handler on_durable;
    };

    // How long sent objects may wait for the hop's next acknowledgement: its resume window,
    // the time the client library itself would go on trying.
    static std::chrono::milliseconds ack_window(const config::client_settings& hop) {
        return hop.resume_retry_for.count() > 0 ? hop.resume_retry_for : hop.connect_timeout;
    }

    void run() {
        client::connection& hop = connection_;
        std::unique_lock lock(mutex_);
        for (;;) {
            if (cancelled_ && !failed_) {
                lock.unlock();
                fail_batches(make_error_code(client::client_errc::interrupted), nullptr);
                lock.lock();
            }
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
                wake_.wait(
                    lock, [&] { return stopping_ || (cancelled_ && !failed_) || !queue_.empty(); });
            } else if (queue_.empty()) {
                if (stopping_) phase_.on_stop(clock::now());
                lock.unlock();
                if (auto ec = hop.poll(5ms)) fail(hop, ec);
                check_deadline(hop);
                lock.lock();
            }
        }
        const bool goodbye = opened_ && !failed_ && !cancelled_;
        lock.unlock();
        if (goodbye) {
            if (auto ec = hop.close()) fail(hop, ec);
            release_acked(hop);
        }
        set_open(false);
        lock.lock();
        done_ = true;
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
            phase_.on_connecting(clock::now());
            if (auto ec = hop.open()) return fail(hop, ec, &b);
            phase_.on_connected(clock::now());
            monitor_->on_success();
            opened_ = true;
            set_open(true);
        }
        for (const auto& m : b.messages)
            if (auto ec = hop.send(m)) return fail(hop, ec, &b);
        if (auto ec = hop.flush()) return fail(hop, ec, &b);
        sent_ += b.messages.size();
        in_flight_.push_back({sent_, std::move(b.on_durable)});
        phase_.on_progress(sent_, hop.stats().objects_acked, clock::now());
    }

    // A hop that keeps objects waiting past their window fails them, as a lost hop does. A
    // stream that ended upstream gives its objects up without marking the hop down: the
    // drain window is short, and a slow hop may still serve the other streams.
    void check_deadline(client::connection& hop) {
        if (failed()) return;
        const auto now = clock::now();
        const bool draining = phase_.current(now) == hop_phase::state::draining;
        auto why = phase_.expired(now);
        if (!why) return;
        const auto ec = make_error_code(client::client_errc::timed_out);
        if (!draining) return fail(hop, ec, nullptr, *why);
        spdlog::warn("forward to {}:{}: {}", hop_.to_host, hop_.to_port, *why);
        fail_batches(ec, nullptr);
    }

    bool failed() {
        std::lock_guard lock(mutex_);
        return static_cast<bool>(failed_);
    }
    bool cancelled() {
        std::lock_guard lock(mutex_);
        return cancelled_;
    }

    // Batches complete in order, as the hop acknowledges in order. Not once cut: a cut link
    // may outlive the session's server (the reaper ends it), and only failures report nothing
    // to the server's counters.
    void release_acked(client::connection& hop) {
        if (cancelled()) return;
        const auto acked = hop.stats().objects_acked;
        phase_.on_progress(sent_, acked, clock::now());
        while (!in_flight_.empty() && in_flight_.front().acked_at <= acked) {
            complete(in_flight_.front().on_durable, {});
            in_flight_.pop_front();
        }
    }

    void complete(durable_handler& on_durable, std::error_code ec) {
        on_durable(ec);
        std::lock_guard lock(mutex_);
        --pending_;
    }

    // The hop is lost for good (after the client's own reconnects) or refused the stream:
    // every batch not yet acknowledged there fails, so nothing of it is acknowledged upstream.
    void fail(client::connection& hop, std::error_code ec, batch* current = nullptr,
              std::string why = {}) {
        if (why.empty()) why = hop.last_error().empty() ? ec.message() : hop.last_error();
        if (!cancelled()) {  // a cut is not the hop's fault
            // Logged by the monitor, one line per interval however many streams fail.
            if (hop_unreachable(ec))
                monitor_->on_failure(why);
            else  // this stream's own refusal: the hop stays up for the others
                spdlog::error("forward to {}:{}: stream refused by the next hop: {}", hop_.to_host,
                              hop_.to_port, why);
        }
        {
            std::lock_guard lock(mutex_);
            failure_ = {ec, refusal_text(why, ec)};
        }
        fail_batches(ec, current);
    }

    void fail_batches(std::error_code ec, batch* current) {
        phase_.on_failed();
        std::deque<batch> queued;
        {
            std::lock_guard lock(mutex_);
            failed_ = ec;
            queued.swap(queue_);
        }
        if (current) complete(current->on_durable, ec);
        for (auto& f : in_flight_)
            complete(f.on_durable, ec);
        in_flight_.clear();
        for (auto& q : queued)
            complete(q.on_durable, ec);
        set_open(false);
    }

    config::client_settings hop_;
    std::shared_ptr<hop_monitor> monitor_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<batch> queue_;
    std::error_code failed_;
    sink_stream::failure failure_;
    std::uint64_t pending_ = 0;  // batches committed and not yet completed
    bool stopping_ = false;      // the stream is gone
    bool cancelled_ = false;     // cut: the hop connection's waits were interrupted
    bool done_ = false;          // the worker has ended
    std::optional<clock::time_point> cut_due_;
    // The worker's own:
    hop_phase phase_;
    std::deque<in_flight> in_flight_;
    std::uint64_t sent_ = 0;
    bool opened_ = false;
    bool counted_ = false;
    std::shared_ptr<std::atomic<std::int64_t>> open_hops_;
    client::connection connection_;  // to the hop: the worker's, but interrupt() from any thread
    std::thread worker_;
};

// The sink's links that were abandoned or whose stream is gone: one thread cuts each when it
// is due and joins the finished ones; at the sink's end it cuts and joins the rest.
class hop_reaper {
  public:
    hop_reaper() : thread_([this] { run(); }) {}
    ~hop_reaper() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_one();
        thread_.join();
        for (auto& link : links_)
            link->cut();
        links_.clear();  // each joins its worker
    }

    void watch(const std::shared_ptr<hop_link>& link) {
        {
            std::lock_guard lock(mutex_);
            if (std::find(links_.begin(), links_.end(), link) == links_.end())
                links_.push_back(link);
        }
        wake_.notify_one();
    }

  private:
    // Looks again at the earliest cut due, and every reap_interval for finished workers.
    static constexpr std::chrono::milliseconds reap_interval{100};

    void run() {
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            const auto now = hop_link::clock::now();
            auto next = now + reap_interval;
            std::erase_if(links_, [&](const std::shared_ptr<hop_link>& link) {
                if (link->retired() && link->done()) return true;  // joined as it goes
                if (auto due = link->cut_due()) {
                    if (*due <= now)
                        link->cut();
                    else
                        next = std::min(next, *due);
                }
                return false;
            });
            if (links_.empty()) {
                wake_.wait(lock);
                continue;
            }
            wake_.wait_until(lock, next);
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::vector<std::shared_ptr<hop_link>> links_;
    std::thread thread_;
};

class forward_stream final : public sink_stream {
  public:
    forward_stream(std::shared_ptr<hop_link> link, std::shared_ptr<hop_reaper> reaper)
        : link_(std::move(link)), reaper_(std::move(reaper)) {}
    ~forward_stream() override {
        link_->stop();
        reaper_->watch(link_);
    }

    void abandon(std::chrono::milliseconds within) override {
        link_->abandon(within);
        reaper_->watch(link_);
    }
    failure last_failure() const override { return link_->last_failure(); }

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
        if (auto ec = link_->commit({std::move(open_), std::move(on_durable)})) return ec;
        open_.clear();
        bytes_ = 0;
        memory_.clear();
        mark_ = {};
        return {};
    }

  private:
    std::shared_ptr<hop_link> link_;
    std::shared_ptr<hop_reaper> reaper_;
    hop_link::message_queue open_;              // the session's open batch (its strand only)
    std::pair<std::size_t, std::size_t> mark_;  // open_.size() and bytes_ at mark()
    std::size_t bytes_ = 0;
    message_memory memory_;  // what open_ holds in memory (the session charges it)
};

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

forward_sink::forward_sink(config::client_settings hop, std::string via)
    : hop_(std::move(hop)),
      via_(std::move(via)),
      relay_id_(make_relay_id(via_)),
      monitor_(std::make_shared<hop_monitor>(hop_.to_host + ":" + std::to_string(hop_.to_port))),
      reaper_(std::make_shared<hop_reaper>()) {}

forward_sink::~forward_sink() = default;

std::string forward_sink::describe() const {
    return "forward:" + hop_.to_host + ":" + std::to_string(hop_.to_port);
}

std::unique_ptr<sink_stream> forward_sink::open_stream(const std::string& sender_id) {
    return open_relayed_stream(sender_id, {});
}

std::unique_ptr<sink_stream> forward_sink::open_relayed_stream(
    const std::string& sender_id, const std::vector<std::string>& relay_path) {
    auto hop = hop_;
    // Anonymous upstream streams stay anonymous (the client picks a random id per connection).
    if (!sender_id.empty()) hop.sender_id = sender_id + "@" + via_;
    hop.relay_path = relay_path;
    hop.relay_path.push_back(relay_id_);
    auto link = std::make_shared<hop_link>(std::move(hop), monitor_, open_hops_);
    return std::make_unique<forward_stream>(std::move(link), reaper_);
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
