// docs/LIBRARY.md's snippets marked `run`, in the guide's order, against objwired: each runs to
// its end without fail(), and what they sent is what the daemon stored. The guide's first
// sections send one Trade and read it back; "Sending values", "Delivery" send one message
// each, "Asynchronous use" two (asio::use_future, a coroutine) and its batch two.
#include <gtest/gtest.h>

#include "daemon_fixture.hpp"
#include "library_snippets.hpp"

namespace objwire::test {
namespace {

class LibrarySnippets : public daemon_fixture {};

TEST_F(LibrarySnippets, TheRunnableOnesRunAgainstObjwired) {
    start();
    library_snippets_given::port = port();
    library_snippets_given::msg = generate("events", 1).front();
    client::options options = client_settings();
    client::connection conn(options);
    ASSERT_FALSE(conn.open()) << conn.last_error();
    client::reader source(options, client::read_options{});
    ASSERT_GE(library_snippets_to_run.size(), 6u);
    for (const auto& snippet : library_snippets_to_run) {
        try {
            snippet.run(options, conn, source);
            library_snippets_given::io.restart();
            library_snippets_given::io.run();  // what the snippet started on the loop
        } catch (const std::exception& e) {
            ADD_FAILURE() << "docs/LIBRARY.md, snippet " << snippet.number << ": " << e.what();
        }
    }
    ASSERT_FALSE(conn.close()) << conn.last_error();
    EXPECT_EQ(library_snippets_given::used, 1) << "the Trade read back by \"Reading structs\"";
    stop();
    const auto objects = stored();
    ASSERT_EQ(objects.size(), 7u);
}

}  // namespace
}  // namespace objwire::test
