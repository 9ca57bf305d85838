// Fuzz target: the config loader (config/settings.hpp: parse_daemon_toml and parse_client_toml,
// toml++ underneath). Whatever the text: no crash, an error is a message with its place, and
// settings that load print (to_toml) as TOML that loads back to the same settings.
//
// Input: one knob byte (bit 0: the client's schema, else the daemon's), then the TOML text.
#include "config/settings.hpp"
#include "fuzz_support.hpp"

using namespace objwire;

namespace {

template <class Settings>
void check(config::outcome<Settings> (*parse)(std::string_view, std::string_view),
           std::string_view text) {
    auto s = parse(text, "fuzz.toml");
    if (!s) {
        FUZZ_CHECK(s.error().message.starts_with("fuzz.toml"));
        return;
    }
    const std::string printed = config::to_toml(*s);
    auto back = parse(printed, "printed.toml");
    FUZZ_CHECK(back.has_value());
    FUZZ_CHECK(*back == *s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view text = fuzz::as_text({data + 1, size - 1});
    if (data[0] & 1)
        check<config::client_settings>(config::parse_client_toml, text);
    else
        check<config::daemon_settings>(config::parse_daemon_toml, text);
    return 0;
}
