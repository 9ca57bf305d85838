// Described structs from a daemon (client::reader), an `objwire encode` file or a journal
// segment (client::stored_file): each stored message decoded into T by field name
// (include/objwire/typed_read.hpp). The source stays the caller's: open it, pass it, close it.
//
//   client::reader r(settings, {.follow = true});
//   if (auto ec = r.open()) report(r.last_error());
//   typed::reader<Trade, client::reader> trades(r, typed::other_records::skip);
//   Trade t;
//   while (trades.next(t)) use(trades.offset(), t);
//   if (trades.error()) report(trades.last_error());
//
// A stream of several record types: typed::reader<T> with other_records::skip reads the Ts
// and passes over the rest (a filter); typed::variant_reader<Source, A, B> hands back each
// message as a std::variant<A, B>. docs/LIBRARY.md, "Several record types in one stream".
#pragma once

#include <string>
#include <system_error>
#include <variant>

#include <objwire/reader.hpp>
#include <objwire/stored_file.hpp>
#include <objwire/typed_read.hpp>

namespace objwire::typed {

// What a typed reader does with a message that is no record of its type(s).
enum class other_records {
    fail,  // next() returns false; error() is wrong_record, naming what it found
    skip,  // next() goes on to the next message; skipped() counts them
};

namespace detail {

// What both readers share: the loop that finds the next message the reader takes, and what
// the caller may ask about the message read last.
template <class Source>
class typed_stream {
  public:
    // The journal offset and sender of the message next() read last.
    std::uint64_t offset() const { return message_.offset; }
    const std::string& sender_id() const { return message_.sender_id; }
    // The message next() read last, as values: to look at one that did not read as wanted.
    const client::stored_message& stored() const { return message_; }
    // Messages of other record types passed over (other_records::skip).
    std::uint64_t skipped() const { return skipped_; }

    std::error_code error() const { return status_ ? status_.code : source_.error(); }
    std::string last_error() const { return status_ ? status_.detail : source_.last_error(); }

  protected:
    typed_stream(Source& source, other_records others) : source_(source), others_(others) {}

    template <class Decode, class Takes>
    bool read_next(Takes&& takes, Decode&& decode) {
        status_ = {};
        while (source_.next(message_)) {
            if (others_ == other_records::skip && !takes(message_.value)) {
                ++skipped_;
                continue;
            }
            status_ = decode(message_.value, message_.offset);
            return !status_;
        }
        return false;
    }

  private:
    Source& source_;
    other_records others_;
    client::stored_message message_;
    decode_status status_;
    std::uint64_t skipped_ = 0;
};

}  // namespace detail

template <described_record T, class Source>
class reader : public detail::typed_stream<Source> {
  public:
    explicit reader(Source& source, other_records others = other_records::fail)
        : detail::typed_stream<Source>(source, others) {}

    // The next stored message as T; false at the end, on the source's error, or on a message
    // that does not read as T (error() says which; the offset is in last_error()). With
    // other_records::skip, messages of other record types are passed over, not errors.
    bool next(T& out) {
        return this->read_next(
            [](const message& m) { return holds<T>(m); },
            [&](const message& m, std::uint64_t offset) { return decode(m, out, offset); });
    }
};

// Several record types from one stream, each message as the alternative its record name
// names (std::visit it). A record of none of them is an error by default, or passed over
// with other_records::skip.
//
//   typed::variant_reader<client::reader, Order, Trade> in(source);
//   std::variant<Order, Trade> m;
//   while (in.next(m)) std::visit(handle, m);
template <class Source, described_record... Ts>
class variant_reader : public detail::typed_stream<Source> {
  public:
    using value_type = std::variant<Ts...>;

    explicit variant_reader(Source& source, other_records others = other_records::fail)
        : detail::typed_stream<Source>(source, others) {}

    bool next(value_type& out) {
        return this->read_next(
            [](const message& m) { return (... || holds<Ts>(m)); },
            [&](const message& m, std::uint64_t offset) { return decode(m, out, offset); });
    }
};

}  // namespace objwire::typed
