// objwire._objwire._Reader: client::reader for Python (docs/PYTHON.md, "Reading").
#include <objwire/reader.hpp>

#include <pybind11/stl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "client/python/python_module.hpp"
#include "client/python/python_values.hpp"

namespace objwire::python {

namespace {

// A cursor reader tells the daemon what was handed out at most this often while reading (and
// whenever it waits, and at its end), as `objwire read --cursor` does.
constexpr std::chrono::seconds ack_interval{1};

// The reader's stop: a flag, and an eventfd made readable with it so that every wait of the
// reader (connect, the daemon's data, a pause between reconnections) ends at once - at
// stop() from another thread, or at Ctrl-C.
class reader_stop final : public sigint_target {
  public:
    reader_stop() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
    ~reader_stop() {
        if (fd_ >= 0) ::close(fd_);
    }
    reader_stop(const reader_stop&) = delete;
    reader_stop& operator=(const reader_stop&) = delete;

    void on_sigint() noexcept override { set(); }
    void set() noexcept {
        flag_ = true;
        const std::uint64_t one = 1;
        if (fd_ >= 0) [[maybe_unused]]
            auto n = ::write(fd_, &one, sizeof one);
    }
    bool is_set() const { return flag_; }
    const std::atomic<bool>* flag() const { return &flag_; }
    int fd() const { return fd_; }  // -1 without an eventfd: the reader looks every 200 ms

  private:
    std::atomic<bool> flag_{false};
    int fd_;
};

class py_reader {
  public:
    py_reader(const option_pairs& pairs, py::dict where, py::dict types)
        : options_(options_from(pairs)), types_(std::move(types)) {
        client::read_options r;
        r.from = where.contains("from") ? where["from"].cast<std::uint64_t>() : 0;
        r.at_end = where.contains("at_end") && where["at_end"].cast<bool>();
        r.last = where.contains("last") ? where["last"].cast<std::uint64_t>() : 0;
        r.since_ms = where.contains("since_ms") ? where["since_ms"].cast<std::uint64_t>() : 0;
        r.sender = where.contains("sender") ? where["sender"].cast<std::string>() : "";
        r.cursor = where.contains("cursor") ? where["cursor"].cast<std::string>() : "";
        r.follow = where.contains("follow") && where["follow"].cast<bool>();
        r.reconnect = r.follow;
        r.client_name = "objwire python";
        r.stop = stop_.flag();
        r.stop_fd = stop_.fd();
        // Called on the thread in next(), every 200 ms of waiting: the signal handlers run
        // (Ctrl-C ends the read), and a cursor hears what was handed out.
        r.on_wait = [this] {
            {
                py::gil_scoped_acquire gil;
                if (signal_raised()) {
                    signal_ = py::error_already_set();
                    stop_.set();
                }
            }
            ack_handed_out();
        };
        reader_ = std::make_unique<client::reader>(options_, r);
        cursor_ = !r.cursor.empty();
        read_ = std::move(r);
    }
    ~py_reader() {
        py::gil_scoped_release nogil;
        reader_.reset();
    }

    // A cursor the last reader let go of a moment ago may still be held by the daemon for its
    // connection (sender_busy): tried again for up to a second, as a follower's reconnection
    // does (docs/LIBRARY.md, "Following and reconnecting").
    void open() {
        std::error_code ec;
        {
            interruptible ctrl_c(stop_);
            py::gil_scoped_release nogil;
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
            auto pause = std::chrono::milliseconds(10);
            while ((ec = reader_->open()) == proto_errc::sender_busy && cursor_ &&
                   std::chrono::steady_clock::now() + pause < give_up && !stop_.is_set()) {
                std::this_thread::sleep_for(pause);
                pause *= 2;
                reader_ = std::make_unique<client::reader>(options_, read_);
            }
        }
        if (ec && signal_raised()) throw py::error_already_set();
        if (ec) raise_error(ec, reader_->last_error());
    }

    // (offset, sender, time_ms, object), or None at the end (or after stop()). A gap the
    // daemon reported is in gaps() before the messages after it.
    py::object next() {
        client::stored_message m;
        bool got = false;
        {
            // Only a wait needs Ctrl-C routed (a sigaction call): not each of a block's objects.
            std::optional<interruptible> ctrl_c;
            if (reader_->ready() == 0) ctrl_c.emplace(stop_);
            py::gil_scoped_release nogil;
            handed_out_ = reader_->resume_at();
            if (cursor_ && std::chrono::steady_clock::now() - last_ack_ >= ack_interval)
                ack_handed_out();
            got = reader_->next(m);
        }
        if (signal_) {
            py::error_already_set e = std::move(*signal_);
            signal_.reset();
            throw e;
        }
        if (!got) {
            if (signal_raised()) throw py::error_already_set();  // Ctrl-C stopped the reader
            if (reader_->error()) raise_error(reader_->error(), reader_->last_error());
            return py::none();
        }
        return py::make_tuple(m.offset, m.sender_id.str(), m.time_ms, to_python(m.value, types_));
    }

    // The messages next() can hand out without waiting, after one it may wait for.
    py::list next_batch(std::size_t most) {
        py::list out;
        py::object first = next();
        if (first.is_none()) return out;
        out.append(first);
        while (out.size() < most && reader_->ready() > 0) {
            py::object m = next();
            if (m.is_none()) break;
            out.append(m);
        }
        return out;
    }

    void stop() { stop_.set(); }
    bool stopped() const { return reader_->stopped(); }
    void ack(std::uint64_t next_offset) {
        std::error_code ec;
        {
            py::gil_scoped_release nogil;
            ec = reader_->ack(next_offset);
        }
        if (ec) raise_error(ec, reader_->last_error());
    }
    // A cursor's clean end at what was handed out; any reader's close.
    void close() {
        std::error_code ec;
        {
            py::gil_scoped_release nogil;
            if (cursor_ && reader_->is_open()) ec = reader_->finish_cursor(reader_->resume_at());
            reader_->close();
        }
        if (ec) raise_error(ec, reader_->last_error());
    }
    bool is_open() const { return reader_->is_open(); }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps() const {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
        for (const auto& g : reader_->gaps())
            out.emplace_back(g.first, g.end);
        return out;
    }
    std::uint64_t resume_at() const { return reader_->resume_at(); }
    std::uint64_t start() const { return reader_->start(); }

  private:
    // Without the GIL: from next() and from the reader's waits.
    void ack_handed_out() {
        if (!cursor_ || handed_out_ == acked_) return;
        if (!reader_->ack(handed_out_)) acked_ = handed_out_;
        last_ack_ = std::chrono::steady_clock::now();
    }

    client::options options_;
    client::read_options read_;
    py::dict types_;
    reader_stop stop_;
    std::unique_ptr<client::reader> reader_;
    bool cursor_ = false;
    std::uint64_t handed_out_ = 0;
    std::uint64_t acked_ = 0;
    std::chrono::steady_clock::time_point last_ack_{};
    std::optional<py::error_already_set> signal_;
};

}  // namespace

void bind_reader(py::module_& m) {
    py::class_<py_reader>(m, "_Reader")
        .def(py::init<const option_pairs&, py::dict, py::dict>())
        .def("open", &py_reader::open)
        .def("next", &py_reader::next)
        .def("next_batch", &py_reader::next_batch)
        .def("stop", &py_reader::stop)
        .def("stopped", &py_reader::stopped)
        .def("ack", &py_reader::ack)
        .def("close", &py_reader::close)
        .def("is_open", &py_reader::is_open)
        .def("gaps", &py_reader::gaps)
        .def("resume_at", &py_reader::resume_at)
        .def("start", &py_reader::start);
}

}  // namespace objwire::python
