// What docs/LIBRARY.md's C++ snippets are given, and the ones marked to run. The snippets
// themselves are extracted by library_snippets.sh into one generated unit of
// library_integration_tests: a snippet that stops compiling fails the build, and
// library_snippets_test.cpp runs the ones marked `run` against objwired.
#pragma once

#include <asio/io_context.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <objwire/connection.hpp>
#include <objwire/options.hpp>
#include <objwire/reader.hpp>
#include <objwire/typed.hpp>
#include <objwire/typed_reader.hpp>

namespace library_snippets_given {

// A snippet's failure: the runner reports it with the snippet's number.
[[noreturn]] inline void fail(const std::string& why) {
    throw std::runtime_error(why);
}

// What the snippets hand to use(): how many objects they read.
inline int used = 0;
template <class T>
void use(std::uint64_t, const T&) {
    ++used;
}

// objwired's default port, which the snippets write as 7878: the runner's daemon's instead.
inline std::uint16_t port = 7878;

// The event loop and the message of "Asynchronous use"; the runner runs the loop after each
// snippet.
inline asio::io_context io;
inline objwire::message msg;

}  // namespace library_snippets_given

// A snippet of docs/LIBRARY.md as a function: `options`, `conn` and `source` are what the
// guide's earlier sections made (a snippet may declare its own, which hide them).
using library_snippet_fn = void (*)(objwire::client::options& options,
                                    objwire::client::connection& conn,
                                    objwire::client::reader& source);
struct library_snippet {
    int number;  // in the guide's order, counting every compiled snippet
    library_snippet_fn run;
};
// The snippets marked `<!-- snippet: run -->`, in the guide's order.
extern const std::vector<library_snippet> library_snippets_to_run;
