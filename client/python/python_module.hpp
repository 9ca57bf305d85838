// What the module's parts share: options from keyword arguments, errors as the package's
// exceptions, waiting with the GIL released while Ctrl-C is watched.
#pragma once

#include <pybind11/pybind11.h>

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

void bind_connection(py::module_& m);
void bind_reader(py::module_& m);

}  // namespace objwire::python
