// Python objects and objwire values (docs/PYTHON.md, "Values"). Sending goes through a tape:
// with the GIL held, a batch of Python objects is walked once into a flat buffer of tagged
// values (strings copied, dataclasses named by their cached record type); then, with the GIL
// released, each object's part of the tape is written into the frame by the encoder's typed
// interface (proto/typed_writer.hpp) - the same bytes as the equal value record, no value tree
// built, and no Python object touched while the library waits for the daemon.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include <objwire/proto/typed_writer.hpp>
#include <objwire/proto/value.hpp>

namespace objwire::python {

namespace py = pybind11;

// A Python value that cannot be sent: its path ("Event.tags[2]") and why. The module raises
// it as objwire.RefusedError (proto_errc set: the library's code) or TypeError (a type
// objwire has no wire form for).
struct conversion_error {
    std::string path;
    std::string why;
    proto_errc code = proto_errc::ok;  // ok: a type error
};

// Python objects written as tagged values, one after another; begin(i) is where object i
// starts. Reused batch after batch: clear() keeps the capacity.
class value_tape {
  public:
    // Appends one object; on failure the tape is as before and `error` says why.
    bool append(py::handle object, conversion_error& error);
    std::size_t size() const { return starts_.size(); }
    void clear() {
        bytes_.clear();
        starts_.clear();
    }
    // The typed source of object i, valid while the tape is unchanged.
    class source;
    source at(std::size_t i) const;

    const std::vector<std::uint8_t>& bytes() const { return bytes_; }

  private:
    friend class tape_builder;
    std::vector<std::uint8_t> bytes_;
    std::vector<std::size_t> starts_;
};

class value_tape::source final : public typed_source {
  public:
    source(const std::uint8_t* begin, const std::uint8_t* end) : begin_(begin), end_(end) {}
    proto_errc write(typed_writer& w, const typed_slot& root) const override;
    message to_message() const override;
    // Where the last write() was refused ("Event.msg"), empty if it was not.
    const std::string& refused_at() const { return refused_at_; }

  private:
    const std::uint8_t* begin_;
    const std::uint8_t* end_;
    mutable std::string refused_at_;
};

// A stored value as Python objects: maps as dict, lists as list, records as the dataclass of
// that record name in `types` (name -> class; fields matched by name, docs/LIBRARY.md "Schema
// evolution") or else as objwire.Record, integers under a dataclass field annotated datetime
// as datetime. Raises on a record that does not fit its dataclass.
py::object to_python(const message& m, const py::dict& types);

// Sets up what conversion needs from Python (datetime's C API, the classes it builds).
void init_values(py::module_& m);

}  // namespace objwire::python
