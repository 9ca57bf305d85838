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
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <objwire/reader.hpp>

namespace objwire::client {

class stored_file {
  public:
    explicit stored_file(std::string path);

    // Opens the file; next() reads it a chunk at a time, so memory is a chunk (1 MiB) and the
    // largest block, whatever the file's size. An error names the file.
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
    // Makes `need` bytes from start_ on available unless the file ends first.
    bool fill(std::size_t need);

    std::string path_;
    std::ifstream in_;
    std::vector<std::uint8_t> buf_;
    std::size_t start_ = 0;       // the next block in buf_
    std::uint64_t position_ = 0;  // its file position
    bool eof_ = false;            // buf_ holds the file to its end
    std::vector<stored_message> pending_;
    std::size_t next_ = 0;
    std::error_code error_;
    std::string last_error_;
};

}  // namespace objwire::client
