// Python objects to the tape and the tape to the encoder (sending), stored values to Python
// objects (reading). python_values.hpp says why a tape.
#include "client/python/python_values.hpp"

#include <datetime.h>

#include <cstring>
#include <limits>
#include <unordered_map>

namespace objwire::python {

namespace {

enum class tag : std::uint8_t {
    null,
    yes,
    no,
    integer,
    floating,
    string,
    bytes,
    list,
    map,
    record
};

// What a dataclass sends: its record type (named by the class, its fields by name), kept for
// the life of the process with the class, so a tape may point at it.
struct record_class {
    py::object cls;
    record_type_ptr type;
    std::vector<py::object> names;  // interned field names, for getattr
};

// Refusing a cycle or a runaway nesting before the stack does; the encoder refuses what is
// deeper than the daemon's limits.max_depth (64 by default) with depth_exceeded.
constexpr unsigned max_nesting = 1000;

struct python_refs {
    py::object dataclass_fields;  // "__dataclass_fields__"
    py::object fields_fn;         // dataclasses.fields
    py::object enum_type;         // enum.Enum
    py::object epoch;             // datetime(1970, 1, 1, tzinfo=timezone.utc)
    py::object record_class;      // objwire.Record, set by the package (objwire/__init__.py)
};
python_refs* refs = nullptr;
std::unordered_map<PyTypeObject*, record_class*> record_classes;

std::string type_name(py::handle h) {
    return Py_TYPE(h.ptr())->tp_name;
}

record_class* dataclass_of(py::handle object) {
    PyTypeObject* t = Py_TYPE(object.ptr());
    if (auto it = record_classes.find(t); it != record_classes.end()) return it->second;
    if (!PyObject_HasAttr(reinterpret_cast<PyObject*>(t), refs->dataclass_fields.ptr()) ||
        PyType_Check(object.ptr()))
        return nullptr;
    auto* rc = new record_class;  // lives with the class, for the process
    rc->cls = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(t));
    std::vector<std::string> names;
    for (py::handle f : refs->fields_fn(rc->cls)) {
        py::str name = f.attr("name");
        names.push_back(name.cast<std::string>());
        PyObject* interned = name.release().ptr();
        PyUnicode_InternInPlace(&interned);
        rc->names.push_back(py::reinterpret_steal<py::object>(interned));
    }
    std::string record_name = py::hasattr(rc->cls, "__objwire_name__")
                                  ? py::str(rc->cls.attr("__objwire_name__")).cast<std::string>()
                                  : py::str(rc->cls.attr("__name__")).cast<std::string>();
    rc->type = make_record_type(std::move(record_name), std::move(names));
    record_classes.emplace(t, rc);
    return rc;
}

}  // namespace

// Walks one Python object into the tape. Errors unwind with the path, as typed::write_path.
class tape_builder {
  public:
    tape_builder(std::vector<std::uint8_t>& out, conversion_error& error)
        : out_(out), error_(error) {}

    bool value(py::handle h, unsigned depth) {
        PyObject* o = h.ptr();
        if (o == Py_None) return put(tag::null);
        if (o == Py_True) return put(tag::yes);
        if (o == Py_False) return put(tag::no);
        if (PyLong_CheckExact(o)) return integer(o);
        if (PyFloat_CheckExact(o)) return floating(PyFloat_AS_DOUBLE(o));
        if (PyUnicode_CheckExact(o)) return string(o);
        if (++depth > max_nesting)
            return fail("", "nested deeper than 1000 (a cycle?)", proto_errc::depth_exceeded);
        if (PyDict_CheckExact(o)) return dict(o, depth);
        if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) return sequence(o, depth);
        if (PyBytes_CheckExact(o))
            return raw(tag::bytes, PyBytes_AS_STRING(o),
                       static_cast<std::size_t>(PyBytes_GET_SIZE(o)));
        if (record_class* rc = dataclass_of(h)) return record(o, *rc, depth);
        return other(h, depth);
    }

  private:
    bool put(tag t) {
        out_.push_back(static_cast<std::uint8_t>(t));
        return true;
    }
    template <class T>
    void put_raw(const T& v) {
        const auto at = out_.size();
        out_.resize(at + sizeof v);
        std::memcpy(out_.data() + at, &v, sizeof v);
    }
    bool fail(std::string segment, std::string why, proto_errc code = proto_errc::ok) {
        error_.path = std::move(segment);
        error_.why = std::move(why);
        error_.code = code;
        return false;
    }
    // Prepends the place a refusal was found at; the segment is made only then.
    bool unwind(const std::string& segment) {
        error_.path.insert(0, segment);
        return false;
    }
    static std::string key_segment(PyObject* key) {
        const char* text = PyUnicode_AsUTF8(key);
        if (text == nullptr) PyErr_Clear();
        return "[\"" + std::string(text != nullptr ? text : "?") + "\"]";
    }
    bool integer(PyObject* o) {
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow != 0)
            return fail("",
                        "integer " + py::str(o).cast<std::string>() +
                            " is outside the signed 64-bit range values hold",
                        proto_errc::integer_out_of_range);
        put(tag::integer);
        put_raw(static_cast<std::int64_t>(v));
        return true;
    }
    bool floating(double d) {
        put(tag::floating);
        put_raw(d);
        return true;
    }
    bool string(PyObject* o) {
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(o, &n);
        if (s == nullptr) {
            PyErr_Clear();
            return fail("", "string is not valid UTF-8 (a lone surrogate)",
                        proto_errc::invalid_utf8);
        }
        return raw(tag::string, s, static_cast<std::size_t>(n));
    }
    bool raw(tag t, const char* s, std::size_t n) {
        if (n > std::numeric_limits<std::uint32_t>::max())
            return fail("", "over 4 GiB", proto_errc::string_too_long);
        put(t);
        put_raw(static_cast<std::uint32_t>(n));
        out_.insert(out_.end(), s, s + n);
        return true;
    }
    bool count(tag t, Py_ssize_t n) {
        put(t);
        put_raw(static_cast<std::uint32_t>(n));
        return true;
    }
    bool dict(PyObject* o, unsigned depth) {
        count(tag::map, PyDict_GET_SIZE(o));
        Py_ssize_t pos = 0;
        PyObject *k = nullptr, *v = nullptr;
        while (PyDict_Next(o, &pos, &k, &v)) {
            if (!PyUnicode_Check(k))
                return fail("", "a dict key of type " + type_name(k) + " (keys are str)");
            if (!string(k) || !value(v, depth)) return unwind(key_segment(k));
        }
        return true;
    }
    bool sequence(PyObject* o, unsigned depth) {
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        PyObject** items = PySequence_Fast_ITEMS(o);
        count(tag::list, n);
        for (Py_ssize_t i = 0; i < n; ++i)
            if (!value(items[i], depth)) return unwind("[" + std::to_string(i) + "]");
        return true;
    }
    bool record(PyObject* o, const record_class& rc, unsigned depth) {
        put(tag::record);
        put_raw(&rc);
        for (std::size_t i = 0; i < rc.names.size(); ++i) {
            PyObject* v = PyObject_GetAttr(o, rc.names[i].ptr());
            if (v == nullptr) {
                PyErr_Clear();
                return fail("." + rc.type->fields[i], "the dataclass has no such attribute");
            }
            const bool ok = value(v, depth);
            Py_DECREF(v);
            if (!ok) return unwind("." + rc.type->fields[i]);
        }
        return true;
    }
    // Subclasses and the other types with a wire form.
    bool other(py::handle h, unsigned depth) {
        PyObject* o = h.ptr();
        if (PyObject_IsInstance(o, refs->enum_type.ptr()) == 1) {
            py::object name = h.attr("name");  // as a described C++ enum: by its name
            return string(name.ptr());
        }
        if (PyBool_Check(o)) return put(o == Py_True ? tag::yes : tag::no);
        if (PyLong_Check(o)) return integer(o);
        if (PyFloat_Check(o)) return floating(PyFloat_AsDouble(o));
        if (PyUnicode_Check(o)) return string(o);
        if (PyDict_Check(o)) return dict(o, depth);
        if (PyList_Check(o) || PyTuple_Check(o)) return sequence(o, depth);
        if (PyBytes_Check(o))
            return raw(tag::bytes, PyBytes_AS_STRING(o),
                       static_cast<std::size_t>(PyBytes_GET_SIZE(o)));
        if (PyByteArray_Check(o))
            return raw(tag::bytes, PyByteArray_AS_STRING(o),
                       static_cast<std::size_t>(PyByteArray_GET_SIZE(o)));
        if (PyMemoryView_Check(o)) {
            py::bytes copy(py::reinterpret_steal<py::object>(PyObject_Bytes(o)));
            return raw(tag::bytes, PyBytes_AS_STRING(copy.ptr()),
                       static_cast<std::size_t>(PyBytes_GET_SIZE(copy.ptr())));
        }
        if (PyDateTime_Check(o)) return datetime(h);
        return fail(
            "", "objwire has no wire form for a " + type_name(h) + " (docs/PYTHON.md, \"Values\")");
    }
    // As a C++ system_clock::time_point: integer nanoseconds since 1970-01-01 UTC.
    bool datetime(py::handle h) {
        if (h.attr("utcoffset")().is_none())
            return fail("", "a naive datetime (no tzinfo): give it one, e.g. timezone.utc");
        py::object delta = h - refs->epoch;
        const auto days = static_cast<std::int64_t>(PyDateTime_DELTA_GET_DAYS(delta.ptr()));
        const auto secs = static_cast<std::int64_t>(PyDateTime_DELTA_GET_SECONDS(delta.ptr()));
        const auto us = static_cast<std::int64_t>(PyDateTime_DELTA_GET_MICROSECONDS(delta.ptr()));
        constexpr std::int64_t max_days =
            std::numeric_limits<std::int64_t>::max() / 86'400'000'000'000 - 1;
        if (days > max_days || days < -max_days)
            return fail("", "datetime outside the +-292 years of nanoseconds since 1970",
                        proto_errc::integer_out_of_range);
        put(tag::integer);
        put_raw(((days * 86'400 + secs) * 1'000'000 + us) * 1000);
        return true;
    }

    std::vector<std::uint8_t>& out_;
    conversion_error& error_;
};

bool value_tape::append(py::handle object, conversion_error& error) {
    const auto size = bytes_.size();
    if (!tape_builder(bytes_, error).value(object, 0)) {
        bytes_.resize(size);
        return false;
    }
    starts_.push_back(size);
    return true;
}

value_tape::source value_tape::at(std::size_t i) const {
    const auto end = i + 1 < starts_.size() ? starts_[i + 1] : bytes_.size();
    return {bytes_.data() + starts_[i], bytes_.data() + end};
}

namespace {

// Reads the tape back, into the encoder or into values.
class tape_reader {
  public:
    explicit tape_reader(const std::uint8_t* p) : p_(p) {}

    tag next_tag() { return static_cast<tag>(*p_++); }
    template <class T>
    T get() {
        T v;
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        return v;
    }
    std::string_view text() {
        const auto n = get<std::uint32_t>();
        std::string_view s(reinterpret_cast<const char*>(p_), n);
        p_ += n;
        return s;
    }
    void skip() {
        switch (next_tag()) {
            case tag::integer:
                get<std::int64_t>();
                break;
            case tag::floating:
                get<double>();
                break;
            case tag::string:
            case tag::bytes:
                text();
                break;
            case tag::list:
                for (auto n = get<std::uint32_t>(); n > 0; --n)
                    skip();
                break;
            case tag::map:
                for (auto n = get<std::uint32_t>(); n > 0; --n) {
                    next_tag();
                    text();
                    skip();
                }
                break;
            case tag::record: {
                const auto* rc = get<const record_class*>();
                for (std::size_t n = rc->type->fields.size(); n > 0; --n)
                    skip();
                break;
            }
            default:
                break;
        }
    }

    proto_errc write(typed_writer& w, const typed_slot& s, std::string& at) {
        switch (next_tag()) {
            case tag::null:
                w.null(s);
                return proto_errc::ok;
            case tag::yes:
                w.boolean(s, true);
                return proto_errc::ok;
            case tag::no:
                w.boolean(s, false);
                return proto_errc::ok;
            case tag::integer:
                w.integer(s, get<std::int64_t>());
                return proto_errc::ok;
            case tag::floating:
                w.floating(s, get<double>());
                return proto_errc::ok;
            case tag::string:
                return w.string(s, text());
            case tag::bytes: {
                const auto t = text();
                return w.bytes(s, {reinterpret_cast<const std::uint8_t*>(t.data()), t.size()});
            }
            case tag::list:
                return write_list(w, s, at);
            case tag::map:
                return write_map(w, s, at);
            case tag::record:
                return write_record(w, s, at);
        }
        return proto_errc::bad_message;
    }

    value read() {
        switch (next_tag()) {
            case tag::null:
                return nullptr;
            case tag::yes:
                return true;
            case tag::no:
                return false;
            case tag::integer:
                return get<std::int64_t>();
            case tag::floating:
                return get<double>();
            case tag::string:
                return text();
            case tag::bytes: {
                const auto t = text();
                return objwire::bytes{{t.begin(), t.end()}};
            }
            case tag::list: {
                objwire::list l(get<std::uint32_t>());
                for (auto& e : l)
                    e = read();
                return l;
            }
            case tag::map: {
                objwire::map m(get<std::uint32_t>());
                for (auto& [k, v] : m) {
                    next_tag();
                    k = text();
                    v = read();
                }
                return m;
            }
            case tag::record: {
                const auto* rc = get<const record_class*>();
                std::vector<value> fields(rc->type->fields.size());
                for (auto& f : fields)
                    f = read();
                return make_record(rc->type, std::move(fields));
            }
        }
        return nullptr;
    }

  private:
    static proto_errc unwind(proto_errc ec, std::string& at, std::string_view segment) {
        if (ec != proto_errc::ok) at.insert(0, segment);
        return ec;
    }
    proto_errc write_list(typed_writer& w, const typed_slot& s, std::string& at) {
        const auto n = get<std::uint32_t>();
        typed_slot e;
        if (auto ec = w.begin_list(s, n, e); ec != proto_errc::ok) return ec;
        for (std::uint32_t i = 0; i < n; ++i)
            if (auto ec = write(w, e, at); ec != proto_errc::ok)
                return unwind(ec, at, "[" + std::to_string(i) + "]");
        return proto_errc::ok;
    }
    proto_errc write_map(typed_writer& w, const typed_slot& s, std::string& at) {
        const auto n = get<std::uint32_t>();
        typed_slot e;
        if (auto ec = w.begin_map(s, n, e); ec != proto_errc::ok) return ec;
        for (std::uint32_t i = 0; i < n; ++i) {
            next_tag();
            const auto key = text();
            proto_errc ec = w.map_key(e, key);
            if (ec == proto_errc::ok) ec = write(w, e, at);
            if (ec != proto_errc::ok) return unwind(ec, at, "[\"" + std::string(key) + "\"]");
        }
        return proto_errc::ok;
    }
    proto_errc write_record(typed_writer& w, const typed_slot& s, std::string& at) {
        const auto* rc = get<const record_class*>();
        typed_record r;
        proto_errc ec = w.begin_record(s, rc->type, r);
        for (const auto& name : rc->type->fields) {
            typed_slot f;
            if (ec == proto_errc::ok && r.next(f)) {
                ec = write(w, f, at);
                if (ec != proto_errc::ok) unwind(ec, at, "." + name);
            } else if (ec == proto_errc::ok) {
                skip();  // transient ([types.NAME] transient)
            }
        }
        if (ec == proto_errc::ok) w.end_record(r);
        return ec;
    }

    const std::uint8_t* p_;
};

}  // namespace

proto_errc value_tape::source::write(typed_writer& w, const typed_slot& root) const {
    refused_at_.clear();
    const proto_errc ec = tape_reader(begin_).write(w, root, refused_at_);
    // As typed::record_source: the path starts at the root record's name ("Event.msg").
    if (ec != proto_errc::ok && static_cast<tag>(*begin_) == tag::record) {
        const record_class* rc = nullptr;
        std::memcpy(&rc, begin_ + 1, sizeof rc);
        refused_at_.insert(0, rc->type->name);
    }
    return ec;
}

message value_tape::source::to_message() const {
    return message(tape_reader(begin_).read());
}

// ---- reading --------------------------------------------------------------------------

namespace {

class python_builder {
  public:
    python_builder(const message& m, const py::dict& types) : m_(m), types_(types) {
        shared_.resize(m.objects.size());
    }

    py::object value(const objwire::value& v) {
        switch (v.type()) {
            case value::kind::null:
                return py::none();
            case value::kind::boolean:
                return py::bool_(v.get<bool>());
            case value::kind::integer:
                return py::int_(v.get<std::int64_t>());
            case value::kind::floating:
                return py::float_(v.get<double>());
            case value::kind::string:
                return text(v.get<std::string>());
            case value::kind::bytes: {
                const auto& b = v.get<objwire::bytes>().data;
                return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
            }
            case value::kind::list: {
                const auto& l = v.get<objwire::list>();
                py::list out(l.size());
                for (std::size_t i = 0; i < l.size(); ++i)
                    out[i] = value(l[i]);
                return out;
            }
            case value::kind::map: {
                py::dict out;
                for (const auto& [k, x] : v.get<objwire::map>()) {
                    py::object key = text(k), item = value(x);
                    if (PyDict_SetItem(out.ptr(), key.ptr(), item.ptr()) != 0)
                        throw py::error_already_set();
                }
                return out;
            }
            case value::kind::record:
                return record(v.get<objwire::record>());
            case value::kind::object_ref:
                return shared(v.get<object_ref>().index);
            case value::kind::lazy:
                break;
        }
        throw py::value_error("a lazy value that was not expanded");
    }

  private:
    static py::object text(const std::string& s) {
        PyObject* o =
            PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
        if (o == nullptr) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(o);
    }
    py::object record(const objwire::record& r) {
        py::dict fields;
        const auto& names = r.type->fields;
        py::object as = types_.contains(r.type->name.c_str())
                            ? py::reinterpret_borrow<py::object>(types_[r.type->name.c_str()])
                            : py::object();
        if (!as) {
            for (std::size_t i = 0; i < names.size(); ++i)
                fields[py::str(names[i])] = value(r.fields[i]);
            return refs->record_class(py::str(r.type->name), fields);
        }
        // (class, field names it has, fields annotated datetime)
        py::tuple info = as;
        py::object cls = info[0];
        py::handle has = info[1], times = info[2];
        for (std::size_t i = 0; i < names.size(); ++i) {
            py::str name(names[i]);
            if (!has.contains(name)) continue;  // removed since: skipped
            py::object x = value(r.fields[i]);
            if (times.contains(name) && PyLong_Check(x.ptr()))
                x = datetime_of(x.cast<std::int64_t>());
            fields[name] = x;
        }
        return cls(**fields);
    }
    static py::object datetime_of(std::int64_t ns) {
        std::int64_t us = ns / 1000;
        if (ns % 1000 < 0) --us;  // floor
        const std::int64_t days = us / 86'400'000'000 - (us % 86'400'000'000 < 0 ? 1 : 0);
        const std::int64_t rest = us - days * 86'400'000'000;
        py::object delta = py::reinterpret_steal<py::object>(
            PyDelta_FromDSU(static_cast<int>(days), static_cast<int>(rest / 1'000'000),
                            static_cast<int>(rest % 1'000'000)));
        if (!delta) throw py::error_already_set();
        return refs->epoch + delta;
    }
    py::object shared(std::uint32_t index) {
        if (index >= shared_.size())
            throw py::value_error("a reference to no object of the message");
        if (!shared_[index]) {
            if (busy_.size() <= index) busy_.resize(shared_.size());
            if (busy_[index])
                throw py::value_error("a cycle of shared objects (not read into Python)");
            busy_[index] = true;
            shared_[index] = value(m_.objects[index]);
            busy_[index] = false;
        }
        return shared_[index];
    }

    const message& m_;
    const py::dict& types_;
    std::vector<py::object> shared_;
    std::vector<bool> busy_;
};

}  // namespace

py::object to_python(const message& m, const py::dict& types) {
    return python_builder(m, types).value(m.root);
}

void init_values(py::module_& m) {
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == nullptr) throw py::error_already_set();
    refs = new python_refs;  // for the life of the process, as the module
    refs->dataclass_fields = py::str("__dataclass_fields__");
    refs->fields_fn = py::module_::import("dataclasses").attr("fields");
    refs->enum_type = py::module_::import("enum").attr("Enum");
    py::module_ dt = py::module_::import("datetime");
    refs->epoch =
        dt.attr("datetime")(1970, 1, 1, py::arg("tzinfo") = dt.attr("timezone").attr("utc"));
    m.def("_set_record_class", [](py::object cls) { refs->record_class = std::move(cls); });
}

}  // namespace objwire::python
