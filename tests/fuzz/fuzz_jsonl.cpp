// Fuzz target: the JSON-lines reader (client/jsonl/jsonl_reader.hpp) that `objwire send` reads
// files and stdin with. Whatever the text: no crash, no read outside it, every line ends as a
// message or as an error with a place inside the text, reading goes on after an error, and a
// message read back from its own JSON text (proto/json_writer.hpp) gives the same text again. Each
// message is also encoded, as `send` would.
//
// Input: the text itself.
#include <algorithm>
#include <string>

#include "client/jsonl/jsonl_reader.hpp"
#include "fuzz_support.hpp"
#include "proto/encoder.hpp"
#include "proto/json_writer.hpp"

using namespace objwire;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text({data, size});
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    jsonl_reader reader(text);
    stream_encoder enc({});
    byte_buffer wire;
    message m;
    std::string json;  // every message read, as JSON lines
    std::size_t messages = 0;
    std::size_t results = 0;
    for (;;) {
        if (reader.next(m)) {
            FUZZ_CHECK(reader.line() >= 1 && reader.line() <= lines);
            append_json(m, json);
            json.push_back('\n');
            ++messages;
            wire.clear();
            (void)enc.encode(m, wire);  // may refuse (depth, size); must not crash
        } else if (const auto& e = reader.error()) {
            FUZZ_CHECK(e->line >= 1 && e->line <= lines && e->column >= 1);
            FUZZ_CHECK(!e->message.empty());
        } else {
            break;
        }
        FUZZ_CHECK(++results <= lines);  // one message or one error per line, at most
    }
    // What the writer made of them reads back, line for line, to the same text.
    jsonl_reader again(json);
    std::string back;
    for (std::size_t i = 0; i < messages; ++i) {
        FUZZ_CHECK(again.next(m));
        append_json(m, back);
        back.push_back('\n');
    }
    FUZZ_CHECK(!again.next(m) && !again.error());
    FUZZ_CHECK(back == json);
    return 0;
}
