// Described structs from a daemon (client::reader), an `objwire encode` file or a journal
// segment (client::stored_file): each stored message decoded into T by field name
// (include/objwire/typed_read.hpp). The source stays the caller's: open it, pass it, close it.
//
//   client::reader r(settings, {.follow = true});
//   if (auto ec = r.open()) report(r.last_error());
//   typed::reader<Trade, client::reader> trades(r);
//   Trade t;
//   while (trades.next(t)) use(trades.offset(), t);
//   if (trades.error()) report(trades.last_error());
#pragma once

#include <string>
#include <system_error>

#include <objwire/reader.hpp>
#include <objwire/stored_file.hpp>
#include <objwire/typed_read.hpp>

namespace objwire::typed {

template <described_record T, class Source>
class reader {
  public:
    explicit reader(Source& source) : source_(source) {}

    // The next stored message as T; false at the end, on the source's error, or on a message
    // that does not read as T (error() says which; the offset is in last_error()).
    bool next(T& out) {
        if (!source_.next(message_)) return false;
        status_ = decode(message_.value, out, message_.offset);
        return !status_;
    }
    // The journal offset and sender of the message next() read last.
    std::uint64_t offset() const { return message_.offset; }
    const std::string& sender_id() const { return message_.sender_id; }
    // The message next() read last, as values: to look at one that did not read as T.
    const client::stored_message& stored() const { return message_; }

    std::error_code error() const { return status_ ? status_.code : source_.error(); }
    std::string last_error() const { return status_ ? status_.detail : source_.last_error(); }

  private:
    Source& source_;
    client::stored_message message_;
    decode_status status_;
};

}  // namespace objwire::typed
