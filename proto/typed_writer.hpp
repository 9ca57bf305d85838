// Writing a message straight from a program's own data, without building a value tree: a
// typed layer (include/objwire/typed.hpp) walks its struct and calls typed_writer, and the bytes
// are exactly those stream_encoder::encode writes for the equal message - the same table entries,
// type descriptors, string indexing and integer deltas, the same limits and errors. Sans-I/O
// and free of any reflection library: the caller says what each value is.
//
//   class my_source final : public typed_source {
//       proto_errc write(typed_writer& w, const typed_slot& root) const override {
//           typed_record r;
//           if (auto ec = w.begin_record(root, type_, r); ec != proto_errc::ok) return ec;
//           typed_slot f;
//           if (r.next(f)) w.integer(f, ts_);             // each declared field, in order
//           ...
//           w.end_record(r);
//           return proto_errc::ok;
//       }
//       message to_message() const override;             // the same message as values
//   };
//   encoder.encode(my_source{...}, out);
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <objwire/proto/byte_buffer.hpp>
#include <objwire/proto/columns.hpp>
#include <objwire/proto/errors.hpp>
#include <objwire/proto/value.hpp>

namespace objwire {

class stream_encoder;

// Where one value goes: its buffer, its nesting depth, and its place - a record's own field
// (direct) gets delta-coded integers and its field's string statistics, a value nested inside
// a field shares the field's statistics.
struct typed_slot {
    byte_buffer* out = nullptr;
    std::uint32_t depth = 1;
    std::int64_t type_id = -1;
    std::uint32_t field = 0;
    bool direct = false;
};

// A record being written. Its fields are offered in the order of its declared type; a field
// that is not sent (transient in encoder_options) is skipped by next().
class typed_record {
  public:
    // The slot of the next declared field; false when that field is not sent (the caller
    // writes nothing for it).
    bool next(typed_slot& s) {
        const std::uint32_t declared = declared_++;
        if (kept_ && (sent_ >= kept_->size() || (*kept_)[sent_] != declared)) return false;
        const std::uint32_t i = sent_++;
        s.out = columns_.empty() ? out_ : &columns_[field_section(i)];
        s.depth = depth_ + 1;
        s.type_id = type_id_;
        s.field = i;
        s.direct = true;
        return true;
    }

  private:
    friend class typed_writer;
    byte_buffer* out_ = nullptr;
    std::span<byte_buffer> columns_;  // a root record in column layout: a section per field
    const std::vector<std::uint32_t>* kept_ = nullptr;
    std::int64_t type_id_ = -1;
    std::uint32_t depth_ = 1;
    std::uint32_t declared_ = 0;
    std::uint32_t sent_ = 0;
};

class typed_writer {
  public:
    explicit typed_writer(stream_encoder& e) : e_(e) {}

    void null(const typed_slot& s);
    void boolean(const typed_slot& s, bool b);
    void integer(const typed_slot& s, std::int64_t v);
    // integer_out_of_range above INT64_MAX: the value encoding's integers are signed 64-bit,
    // and a silent wrap would store a different number.
    proto_errc unsigned_integer(const typed_slot& s, std::uint64_t v);
    void floating(const typed_slot& s, double d);
    proto_errc string(const typed_slot& s, std::string_view text);
    proto_errc bytes(const typed_slot& s, std::span<const std::uint8_t> b);
    // The head of a list of n elements; each element is then written at `element`.
    proto_errc begin_list(const typed_slot& s, std::size_t n, typed_slot& element);
    // The head of a map of n entries; each entry is a map_key() then its value at `element`.
    proto_errc begin_map(const typed_slot& s, std::size_t n, typed_slot& element);
    proto_errc map_key(const typed_slot& element, std::string_view key);
    // A record of `type` (its id, or its descriptor the first time); its fields follow through
    // r.next(), then end_record(r).
    proto_errc begin_record(const typed_slot& s, const record_type_ptr& type, typed_record& r);
    void end_record(const typed_record& r);
    // A shared object of this message, known by the address of its data: the first time its
    // definition begins (`define` true, its body goes to `body`), after that a reference to it
    // is written (`define` false, nothing follows).
    proto_errc object(const typed_slot& s, const void* identity, bool& define, typed_slot& body);

  private:
    stream_encoder& e_;
};

// One message written by typed_writer calls. to_message() is the same message as values: the
// encoder uses it only where it works on values (lazy packing); tests compare the two.
class typed_source {
  public:
    virtual proto_errc write(typed_writer& w, const typed_slot& root) const = 0;
    virtual message to_message() const = 0;

  protected:
    ~typed_source() = default;
};

}  // namespace objwire
