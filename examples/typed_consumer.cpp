// Reads trades back from objwired as market::Trade, by field name: without --follow it stops
// at what is stored, with it it waits for new trades (until N have been read).
//
//   typed_consumer HOST:PORT [N] [--follow]
#include <objwire/reader.hpp>
#include <objwire/typed_reader.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "trade.hpp"

int main(int argc, char** argv) {
    objwire::client::options settings;
    if (!market::daemon_at(argc > 1 ? argv[1] : nullptr, settings)) {
        std::cerr << "usage: typed_consumer HOST:PORT [N] [--follow]\n";
        return 2;
    }
    const long want = argc > 2 ? std::atol(argv[2]) : -1;
    const bool follow = argc > 3 && std::strcmp(argv[3], "--follow") == 0;

    objwire::client::read_options options;
    options.follow = follow;
    options.reconnect = follow;  // a follower outlives a daemon restart (resume.retry_for)
    objwire::client::reader source(settings, options);
    if (auto ec = source.open()) {
        std::cerr << "typed_consumer: " << source.last_error() << "\n";
        return 1;
    }
    objwire::typed::reader<market::Trade, objwire::client::reader> trades(source);
    market::Trade t;
    long n = 0, sells = 0;
    double volume = 0;
    while ((want < 0 || n < want) && trades.next(t)) {
        ++n;
        sells += t.sd == market::side::sell;
        volume += t.px * static_cast<double>(t.qty);
    }
    if (trades.error()) {
        std::cerr << "typed_consumer: " << trades.last_error() << "\n";
        return 1;
    }
    source.close();
    std::cout << "typed_consumer: " << n << " trades, " << sells << " sells, volume " << volume
              << "\n";
    return 0;
}
