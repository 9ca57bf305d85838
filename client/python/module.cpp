// The extension objwire._objwire (docs/PYTHON.md): options, errors, the connection.
#include <objwire/connection.hpp>
#include <objwire/errors.hpp>

#include <pybind11/stl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "client/python/python_module.hpp"
#include "client/python/python_values.hpp"
#include "config/client_options.hpp"
#include "config/settings.hpp"

namespace objwire::python {

namespace {

using std::chrono::milliseconds;

// A blocking call waits in slices this long, the GIL released, and between them runs the
// signal handlers: Ctrl-C ends flush() and close() within one slice.
constexpr milliseconds wait_slice{50};

// The objwire.toml key a Python name means: the key itself ("batch.linger"), its dots as
// underscores ("batch_linger") or its last part when only one key has it ("linger", "to").
std::string key_of(const std::string& name, const std::vector<config::key_info>& keys) {
    if (name.find('.') != std::string::npos) return name;
    std::string unique;
    int found = 0;
    for (const auto& k : keys) {
        std::string underscored = k.name;
        std::replace(underscored.begin(), underscored.end(), '.', '_');
        if (underscored == name) return k.name;
        if (k.name.substr(k.name.rfind('.') + 1) == name) {
            unique = k.name;
            ++found;
        }
    }
    return found == 1 ? unique : name;
}

}  // namespace

client::options options_from(const option_pairs& pairs) {
    config::client_settings s;
    const auto keys = config::client_keys();
    for (const auto& [name, text] : pairs) {
        const std::string key = key_of(name, keys);
        if (auto e = config::apply_client_override(s, key, text, name))
            raise_error(client::client_errc::invalid_options, e->message);
    }
    return config::to_options(s);
}

void raise_error(std::error_code ec, const std::string& text) {
    py::object errors = py::module_::import("objwire._errors");
    py::object exc = errors.attr("error_for")(ec.category().name(), ec.value(), text);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
    throw py::error_already_set();
}

bool signal_raised() {
    return PyErr_CheckSignals() != 0;
}

namespace {

// The library's "message refused: why" with the field's path put in front of why, as the
// library does for a C++ struct: "message refused: Event.msg: string is not valid UTF-8".
std::string with_path(std::string text, const std::string& path) {
    if (path.empty()) return text;
    const std::string head = "message refused: ";
    if (text.rfind(head, 0) == 0) return head + path + ": " + text.substr(head.size());
    return path + ": " + text;
}

[[noreturn]] void raise_conversion(const conversion_error& e) {
    const std::string at = e.path.empty() ? "" : (e.path[0] == '.' ? "field " : "") + e.path + ": ";
    if (e.code == proto_errc::ok) throw py::type_error(at + e.why);
    raise_error(e.code, "message refused: " + at + e.why);
}

}  // namespace

// Ctrl-C during a call that waits for the daemon: SIGINT is routed to the targets of the calls
// waiting now (a flag and a write(2) each: async-signal-safe), and then to the handler it
// replaced.
namespace {

std::array<std::atomic<sigint_target*>, 64> blocked{};
struct sigaction replaced {};

void on_sigint(int sig, siginfo_t* info, void* context) {
    for (auto& t : blocked)
        if (sigint_target* target = t.load()) target->on_sigint();
    if ((replaced.sa_flags & SA_SIGINFO) != 0) {
        replaced.sa_sigaction(sig, info, context);
    } else if (replaced.sa_handler == SIG_DFL) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
    } else if (replaced.sa_handler != SIG_IGN) {
        replaced.sa_handler(sig);
    }
}

// A connection's waits end at once, without the library's grace for late acknowledgements:
// Ctrl-C in a script is answered within the 200 ms a person notices.
class connection_target final : public sigint_target {
  public:
    explicit connection_target(client::connection& conn) : conn_(conn) {}
    void on_sigint() noexcept override { conn_.interrupt_now(); }

  private:
    client::connection& conn_;
};

}  // namespace

// Puts the routing in front of whatever handles SIGINT now (Python's handler may have been set
// again since the last call).
interruptible::interruptible(sigint_target& target) {
    struct sigaction now {};
    sigaction(SIGINT, nullptr, &now);
    if ((now.sa_flags & SA_SIGINFO) == 0 || now.sa_sigaction != on_sigint) {
        if (now.sa_handler == SIG_IGN) return;  // Ctrl-C ignored: nothing to interrupt
        replaced = now;
        struct sigaction ours {};
        ours.sa_sigaction = on_sigint;
        ours.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&ours.sa_mask);
        sigaction(SIGINT, &ours, nullptr);
    }
    for (auto& t : blocked) {
        sigint_target* none = nullptr;
        if (t.compare_exchange_strong(none, &target)) {
            slot_ = &t;
            return;
        }
    }
}

interruptible::~interruptible() {
    if (slot_ != nullptr) slot_->store(nullptr);
}

namespace {

// Outcomes of send_async, handed to Python in bursts. The library's worker queues each and,
// when the queue was empty, makes an eventfd readable, which the event loop watches
// (loop.add_reader, objwire/_aio.py): waking the loop needs no GIL, so the worker never waits
// for the Python thread, nor holds it up.
class async_outcomes {
  public:
    async_outcomes() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
        if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    }
    ~async_outcomes() { ::close(fd_); }
    async_outcomes(const async_outcomes&) = delete;
    async_outcomes& operator=(const async_outcomes&) = delete;

    int fd() const { return fd_; }
    // On the library's worker thread, without the GIL.
    void push(std::uint64_t first, std::uint64_t count, std::error_code ec, std::string text) {
        bool wake = false;
        {
            std::lock_guard lock(mu_);
            wake = queue_.empty();
            queue_.push_back({first, count, ec, std::move(text)});
        }
        const std::uint64_t one = 1;
        if (wake) [[maybe_unused]]
            auto n = ::write(fd_, &one, sizeof one);
    }
    // The first `most` outcomes waiting, [(first token, count, None | (category, code, text))],
    // with the GIL. While some are left the eventfd is not made readable again: the caller drains
    // on.
    py::list drain(std::size_t most) {
        std::uint64_t count = 0;
        [[maybe_unused]] auto n = ::read(fd_, &count, sizeof count);  // readable no more
        std::vector<outcome> taken;
        {
            std::lock_guard lock(mu_);
            const auto end =
                queue_.begin() + static_cast<std::ptrdiff_t>(std::min(most, queue_.size()));
            taken.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(end));
            queue_.erase(queue_.begin(), end);
        }
        py::list out;
        for (const auto& o : taken) {
            if (!o.ec)
                out.append(py::make_tuple(o.first, o.count, py::none()));
            else
                out.append(
                    py::make_tuple(o.first, o.count,
                                   py::make_tuple(o.ec.category().name(), o.ec.value(), o.text)));
        }
        return out;
    }

  private:
    struct outcome {
        std::uint64_t first;  // the tokens first .. first + count - 1
        std::uint64_t count;
        std::error_code ec;
        std::string text;
    };
    int fd_;
    std::mutex mu_;
    std::deque<outcome> queue_;
};

// send_many's second stage: a thread of the connection's own sends one tape of objects while
// the Python thread walks the next objects into the other tape - the two halves of the work
// on two cores. The Python thread waits for the sending thread in slices and runs the signal
// handlers between them, so Ctrl-C raises within one slice even while the library waits for
// a daemon that stopped answering (the sending thread is then interrupted, and ends on its
// own).
class tape_pipeline {
  public:
    using send_function = std::function<std::error_code(const value_tape::source&)>;
    struct result {
        std::error_code ec;
        std::size_t index = 0;  // in its tape
        std::string path;
    };

    explicit tape_pipeline(send_function send)
        : send_(std::move(send)), thread_([this] { run(); }) {}
    ~tape_pipeline() {
        {
            std::lock_guard lock(mu_);
            quit_ = true;
        }
        ready_.notify_all();
        thread_.join();
    }
    tape_pipeline(const tape_pipeline&) = delete;
    tape_pipeline& operator=(const tape_pipeline&) = delete;

    value_tape& tape(int i) { return tapes_[i]; }
    // Hands tape i to the sending thread, which is idle (wait() returned true).
    void start(int i) {
        {
            std::lock_guard lock(mu_);
            job_ = i;
            done_ = false;
        }
        ready_.notify_all();
    }
    // With the GIL: waits for the tape handed last. False when a signal handler raised first
    // (its error is set); the tape is then still being sent.
    bool wait(result& out) {
        for (;;) {
            {
                py::gil_scoped_release nogil;
                std::unique_lock lock(mu_);
                if (ready_.wait_for(lock, wait_slice, [this] { return done_; })) {
                    out = result_;
                    return true;
                }
            }
            if (signal_raised()) return false;
        }
    }
    // Without the GIL: until the sending thread is idle (after an interrupted send_many).
    void wait_idle() {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [this] { return done_; });
    }
    bool busy() {
        std::lock_guard lock(mu_);
        return !done_;
    }

  private:
    void run() {
        std::unique_lock lock(mu_);
        for (;;) {
            ready_.wait(lock, [this] { return quit_ || job_ >= 0; });
            if (quit_) return;
            const value_tape& tape = tapes_[job_];
            job_ = -1;
            lock.unlock();
            result r;
            for (std::size_t i = 0; i < tape.size() && !r.ec; ++i) {
                const auto source = tape.at(i);
                if ((r.ec = send_(source))) {
                    r.index = i;
                    r.path = source.refused_at();
                }
            }
            lock.lock();
            result_ = std::move(r);
            done_ = true;
            ready_.notify_all();
        }
    }

    send_function send_;
    value_tape tapes_[2];
    std::mutex mu_;
    std::condition_variable ready_;
    int job_ = -1;
    bool done_ = true;
    bool quit_ = false;
    result result_;
    std::thread thread_;
};

class py_connection {
  public:
    explicit py_connection(const option_pairs& pairs)
        : conn_(std::make_unique<client::connection>(options_from(pairs), "objwire python")) {}
    ~py_connection() {
        // Its worker may be waiting to run a Python completion.
        py::gil_scoped_release nogil;
        if (pipeline_ && pipeline_->busy()) conn_->interrupt_now();
        pipeline_.reset();
        conn_.reset();
    }

    void open(double retry_for, bool skip_stored) {
        conn_->skip_stored(skip_stored);
        as_messages_ = skip_stored;
        std::error_code ec;
        {
            interruptible ctrl_c(sigint_);
            py::gil_scoped_release nogil;
            ec = retry_for > 0 ? conn_->open(milliseconds(static_cast<long>(retry_for * 1000)))
                               : conn_->open();
        }
        if (ec) raise_error(ec, conn_->last_error());
    }

    void send(py::handle obj) {
        value_tape& tape = thread_tape();
        conversion_error bad;
        if (!tape.append(obj, bad)) raise_conversion(bad);
        send_tape(tape);
    }

    // Objects are taken in batches, walked into a tape with the GIL while the batch before is
    // sent without it (tape_pipeline). A second thread's send_many at the same time sends its
    // batches itself.
    std::uint64_t send_many(py::iterable objects, std::size_t batch) {
        if (pipeline_in_use_.exchange(true)) return send_many_here(objects, batch);
        struct release_pipeline {
            std::atomic<bool>& in_use;
            ~release_pipeline() { in_use = false; }
        } release{pipeline_in_use_};
        if (!pipeline_)
            pipeline_ = std::make_unique<tape_pipeline>(
                [this](const value_tape::source& source) { return send_one(source); });
        if (pipeline_->busy()) {  // the last tape of a send_many that Ctrl-C ended
            py::gil_scoped_release nogil;
            pipeline_->wait_idle();
        }
        py::iterator it = py::iter(objects);
        std::uint64_t handed = 0, running_from = 0;
        bool running = false;
        for (int cur = 0;; cur ^= 1) {
            value_tape& tape = pipeline_->tape(cur);
            tape.clear();
            conversion_error bad;
            bool converted = true;
            try {
                converted = fill(tape, it, batch, bad);
            } catch (py::error_already_set&) {  // the iterable's own error, after the batch before
                if (running) finish_running(running_from);
                throw;
            }
            if (running) finish_running(running_from);
            running = tape.size() > 0;
            if (running) {
                pipeline_->start(cur);
                running_from = handed;
                handed += tape.size();
            }
            if (!converted) {
                if (running) finish_running(running_from);
                bad.path = "[" + std::to_string(handed) + "]" + bad.path;
                raise_conversion(bad);
            }
            if (it == py::iterator::sentinel()) break;
        }
        if (running) finish_running(running_from);
        return handed;
    }

    // Waits for every acknowledgement, in slices; timeout < 0: as long as it takes.
    void flush(double timeout) {
        const auto deadline = std::chrono::steady_clock::now() +
                              milliseconds(timeout < 0 ? 0 : static_cast<long>(timeout * 1000));
        for (;;) {
            auto slice = wait_slice;
            if (timeout >= 0)
                slice = std::min(slice, std::chrono::duration_cast<milliseconds>(
                                            deadline - std::chrono::steady_clock::now()));
            std::error_code ec;
            {
                py::gil_scoped_release nogil;
                ec = conn_->flush(std::max(slice, milliseconds(0)));
            }
            if (!ec) return;
            if (ec != client::client_errc::timed_out) raise_error(ec, conn_->last_error());
            if (signal_raised()) throw py::error_already_set();
            if (timeout >= 0 && std::chrono::steady_clock::now() >= deadline)
                raise_error(ec, conn_->last_error());
        }
    }

    void close() {
        if (!conn_->is_open()) return;
        flush(-1);
        std::error_code ec;
        {
            interruptible ctrl_c(sigint_);
            py::gil_scoped_release nogil;
            ec = conn_->close();
        }
        if (ec) raise_error(ec, conn_->last_error());
    }

    // asyncio (objwire/_aio.py): objects started by send_async in one turn of the event loop
    // are staged, then handed to the library as one async_send_many - one job and one
    // completion for the batch instead of one each, which is most of an asynchronous send's
    // cost. The batch's outcome comes out of drain_async() under its tokens.
    void stage_async(py::handle obj) {
        value_tape& tape = thread_tape();
        conversion_error bad;
        if (!tape.append(obj, bad)) raise_conversion(bad);
        staged_.push_back(tape.at(0).to_message());
    }
    void send_staged(std::uint64_t first) {
        if (staged_.empty()) return;
        std::vector<message> batch;
        batch.swap(staged_);
        const std::uint64_t count = batch.size();
        conn_->async_send_many(std::move(batch), outcome_for(first, count));
    }
    // Tokens first .. first + count - 1 complete once everything sent before is durable (what a
    // batch refused in its middle had sent before the refusal).
    void flush_async(std::uint64_t first, std::uint64_t count) {
        conn_->async_flush(outcome_for(first, count));
    }
    int async_fd() const { return outcomes_->fd(); }
    py::list drain_async(std::size_t most) { return outcomes_->drain(most); }

    void interrupt() { conn_->interrupt(); }
    bool is_open() const { return conn_->is_open(); }
    std::uint64_t unacknowledged() const { return conn_->unacknowledged(); }
    std::string sender_id() const { return conn_->sender_id(); }
    std::uint64_t stored_objects() const { return conn_->stored_objects(); }
    std::uint64_t skipped_objects() const { return conn_->skipped_objects(); }
    std::string last_error() const { return conn_->last_error(); }
    void set_send_timeout(double s) {
        conn_->set_send_timeout(milliseconds(static_cast<long>(s * 1000)));
    }
    std::map<std::string, std::uint64_t> stats() const {
        const auto s = conn_->stats();
        return {{"objects_sent", s.objects_sent},
                {"objects_acked", s.objects_acked},
                {"frames", s.frames},
                {"wire_bytes_out", s.wire_bytes_out},
                {"reconnects", s.reconnects},
                {"frames_resent", s.frames_resent}};
    }

  private:
    std::function<void(std::error_code)> outcome_for(std::uint64_t first, std::uint64_t count) {
        return [outcomes = outcomes_, conn = conn_.get(), first, count](std::error_code ec) {
            outcomes->push(first, count, ec, ec ? conn->last_error() : std::string());
        };
    }
    static bool fill(value_tape& tape, py::iterator& it, std::size_t batch, conversion_error& bad) {
        for (; it != py::iterator::sentinel() && tape.size() < batch &&
               tape.bytes().size() < (4u << 20);
             ++it)
            if (!tape.append(*it, bad)) return false;
        return true;
    }
    // Waits for the batch the pipeline sends; raises its refusal, or the signal handler's error.
    void finish_running(std::uint64_t first) {
        tape_pipeline::result r;
        if (!pipeline_->wait(r)) {
            conn_->interrupt_now();
            throw py::error_already_set();
        }
        if (!r.ec) return;
        const std::string at = "send_many[" + std::to_string(first + r.index) + "]";
        raise_error(r.ec, with_path(conn_->last_error(), r.path.empty() ? at : at + " " + r.path));
    }
    // send_many on the calling thread: batch by batch, each sent with the GIL released.
    std::uint64_t send_many_here(py::iterable objects, std::size_t batch) {
        std::uint64_t sent = 0;
        py::iterator it = py::iter(objects);
        value_tape& tape = thread_tape();
        while (it != py::iterator::sentinel()) {
            tape.clear();
            conversion_error bad;
            const bool converted = fill(tape, it, batch, bad);
            send_tape(tape);
            if (!converted) {
                bad.path = "[" + std::to_string(sent + tape.size()) + "]" + bad.path;
                raise_conversion(bad);
            }
            sent += tape.size();
            if (signal_raised()) throw py::error_already_set();
        }
        return sent;
    }
    // Each thread's own, reused call after call (a connection may be used by several).
    static value_tape& thread_tape() {
        thread_local value_tape tape;
        tape.clear();
        return tape;
    }
    // A rerun compares digests of messages (the library digests no typed source), so a
    // connection that skips what its sender id stored sends value trees.
    std::error_code send_one(const value_tape::source& source) {
        if (as_messages_) return conn_->send(source.to_message());
        return conn_->send(static_cast<const typed_source&>(source));
    }
    void send_tape(const value_tape& tape) {
        std::error_code ec;
        std::string path;
        {
            interruptible ctrl_c(sigint_);
            py::gil_scoped_release nogil;
            for (std::size_t i = 0; i < tape.size(); ++i) {
                const auto source = tape.at(i);
                ec = send_one(source);
                if (ec) {
                    path = source.refused_at();
                    break;
                }
            }
        }
        if (!ec) return;
        if (ec == client::client_errc::interrupted && signal_raised())
            throw py::error_already_set();
        raise_error(ec, with_path(conn_->last_error(), path));
    }

    std::shared_ptr<async_outcomes> outcomes_ = std::make_shared<async_outcomes>();
    std::unique_ptr<client::connection> conn_;
    connection_target sigint_{*conn_};
    bool as_messages_ = false;
    std::vector<message> staged_;  // by the event loop's thread, with the GIL
    std::unique_ptr<tape_pipeline> pipeline_;
    std::atomic<bool> pipeline_in_use_{false};
};

}  // namespace

void bind_connection(py::module_& m) {
    // Calls that take the connection's mutex, which a send waiting for the daemon holds: the
    // other Python threads run meanwhile.
    const auto nogil = py::call_guard<py::gil_scoped_release>();
    py::class_<py_connection>(m, "_Connection")
        .def(py::init<const option_pairs&>())
        .def("open", &py_connection::open)
        .def("send", &py_connection::send)
        .def("send_many", &py_connection::send_many)
        .def("flush", &py_connection::flush)
        .def("close", &py_connection::close)
        .def("stage_async", &py_connection::stage_async)
        .def("send_staged", &py_connection::send_staged)
        .def("flush_async", &py_connection::flush_async)
        .def("async_fd", &py_connection::async_fd)
        .def("drain_async", &py_connection::drain_async)
        .def("interrupt", &py_connection::interrupt)
        .def("is_open", &py_connection::is_open)
        .def("unacknowledged", &py_connection::unacknowledged, nogil)
        .def("sender_id", &py_connection::sender_id, nogil)
        .def("stored_objects", &py_connection::stored_objects, nogil)
        .def("skipped_objects", &py_connection::skipped_objects, nogil)
        .def("last_error", &py_connection::last_error, nogil)
        .def("set_send_timeout", &py_connection::set_send_timeout)
        .def("stats", &py_connection::stats, nogil);
    m.def("check_options", [](const option_pairs& pairs) { options_from(pairs); });
    // send_async's waiting futures, out of the garbage collector's sight (objwire/_aio.py).
    m.def("untracked", [](py::object obj) {
        if (PyObject_GC_IsTracked(obj.ptr())) PyObject_GC_UnTrack(obj.ptr());
        return obj;
    });
    m.def("track_all", [](const py::list& objs) {
        for (const auto& o : objs)
            if (PyObject_IS_GC(o.ptr()) && !PyObject_GC_IsTracked(o.ptr()))
                PyObject_GC_Track(o.ptr());
    });
}

}  // namespace objwire::python

PYBIND11_MODULE(_objwire, m) {
    m.doc() = "objwire's client library, bound for Python (docs/PYTHON.md)";
    objwire::python::init_values(m);
    objwire::python::bind_connection(m);
    objwire::python::bind_reader(m);
}
