// Reading a file of journal blocks message by message: what `objwire encode` writes and the
// segments objwired's journal keeps (docs/JOURNAL.md). Each message comes with its journal
// offset and the sender id of its block, as client::reader hands them out, so the same typed
// layer (include/objwire/typed_reader.hpp) reads a daemon, a file or a segment.
//
//   client::stored_file f("journal-00000001.owj");
//   if (auto ec = f.open()) report(f.last_error());
//   client::stored_message m;
//   while (f.next(m)) use(m.offset, m.value);
//   if (f.error()) report(f.last_error());
#pragma once

#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include <objwire/reader.hpp>

namespace objwire::client {

class stored_file {
  public:
    explicit stored_file(std::string path);

    // Reads the file whole; an error names the file.
    std::error_code open();
    // The next message; false at the end of the file or on an error (see error()). A file that
    // ends inside a block (a segment still being written, a torn append) is an error after
    // the messages of its whole blocks.
    bool next(stored_message& out);

    std::error_code error() const { return error_; }
    const std::string& last_error() const { return last_error_; }

  private:
    bool fail(std::error_code ec, std::string text);
    bool next_block();

    std::string path_;
    std::vector<std::uint8_t> data_;
    std::size_t position_ = 0;  // of the next block in data_
    std::vector<stored_message> pending_;
    std::size_t next_ = 0;
    std::error_code error_;
    std::string last_error_;
};

}  // namespace objwire::client
