// What the module's parts share: options from keyword arguments, errors as the package's
// exceptions, waiting with the GIL released while Ctrl-C is watched.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <objwire/options.hpp>

namespace objwire::python {

namespace py = pybind11;

// (objwire.toml key or its Python spelling, value as text) pairs, as objwire/__init__.py
// passes them: each checked by the settings loader, the error naming the key as given.
using option_pairs = std::vector<std::pair<std::string, std::string>>;
client::options options_from(const option_pairs& pairs);

// Raises the package's exception for `ec` (objwire/_errors.py) with `text`.
[[noreturn]] void raise_error(std::error_code ec, const std::string& text);

// Runs the Python signal handlers (on the main thread); true if one raised (the error is set).
bool signal_raised();

// What Ctrl-C ends at once while a blocking call waits on it: a connection, a reader.
class sigint_target {
  public:
    // From the SIGINT handler: async-signal-safe.
    virtual void on_sigint() noexcept = 0;

  protected:
    ~sigint_target() = default;
};

// While it lives, SIGINT calls target.on_sigint() and then the handler it replaced (Python's,
// which raises KeyboardInterrupt once the call returns): Python's handler alone only notes the
// signal, so a wait in the library would go on.
class interruptible {
  public:
    explicit interruptible(sigint_target& target);
    ~interruptible();
    interruptible(const interruptible&) = delete;
    interruptible& operator=(const interruptible&) = delete;

  private:
    std::atomic<sigint_target*>* slot_ = nullptr;
};

void bind_connection(py::module_& m);
void bind_reader(py::module_& m);

}  // namespace objwire::python
