// Sends N trades to objwired as a described struct: conn.send(trade) encodes the struct's
// fields straight into the frame.
//
//   typed_producer HOST:PORT [N]    (default 127.0.0.1:7878, 1000 trades)
#include <objwire/connection.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

#include "trade.hpp"

int main(int argc, char** argv) {
    objwire::client::options settings;
    if (!market::daemon_at(argc > 1 ? argv[1] : nullptr, settings)) {
        std::cerr << "usage: typed_producer HOST:PORT [N]\n";
        return 2;
    }
    const int n = argc > 2 ? std::atoi(argv[2]) : 1000;

    objwire::client::connection conn(settings, "typed_producer example");
    if (auto ec = conn.open()) {
        std::cerr << "typed_producer: cannot connect: " << ec.message() << " " << conn.last_error()
                  << "\n";
        return 1;
    }
    market::Trade t;
    for (int i = 0; i < n; ++i) {
        t.sym = i % 2 == 0 ? "ACME" : "INIT";
        t.px = 100.0 + i * 0.25;
        t.qty = i;
        t.sd = i % 3 == 0 ? market::side::sell : market::side::buy;
        t.venue = i % 2 == 0 ? std::optional<std::string>("XNYS") : std::nullopt;
        t.tags = {"example"};
        if (auto ec = conn.send(t)) {
            std::cerr << "typed_producer: send failed: " << ec.message() << "\n";
            return 1;
        }
    }
    // close() waits until objwired has acknowledged every trade: they are stored.
    if (auto ec = conn.close()) {
        std::cerr << "typed_producer: close failed: " << ec.message() << "\n";
        return 1;
    }
    std::cout << "typed_producer: " << conn.stats().objects_acked << " trades acknowledged\n";
    return 0;
}
