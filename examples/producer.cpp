// Sends N trades to objwired with the value API: one record type, declared once and shared
// by every record, and one message per trade.
//
//   producer HOST:PORT [N]    (default 127.0.0.1:7878, 1000 trades)
#include <objwire/connection.hpp>
#include <objwire/version.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    objwire::client::options settings;
    if (argc > 1) {
        const std::string to = argv[1];
        const auto colon = to.rfind(':');
        if (colon == std::string::npos) {
            std::cerr << "usage: producer HOST:PORT [N]\n";
            return 2;
        }
        settings.host = to.substr(0, colon);
        settings.port = static_cast<std::uint16_t>(std::stoi(to.substr(colon + 1)));
    }
    const int n = argc > 2 ? std::atoi(argv[2]) : 1000;

    const auto trade = objwire::make_record_type("Trade", {"sym", "px", "qty"});
    objwire::client::connection conn(settings, "producer example");
    if (auto ec = conn.open()) {
        std::cerr << "producer: cannot connect: " << ec.message() << "\n";
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        const char* sym = i % 2 == 0 ? "ACME" : "INIT";
        objwire::message m{objwire::make_record(trade, {sym, 100.0 + i * 0.25, std::int64_t{i}})};
        if (auto ec = conn.send(m)) {
            std::cerr << "producer: send failed: " << ec.message() << "\n";
            return 1;
        }
    }
    // close() waits until objwired has acknowledged every trade: they are stored.
    if (auto ec = conn.close()) {
        std::cerr << "producer: close failed: " << ec.message() << "\n";
        return 1;
    }
    std::cout << "producer (objwire " << objwire::version << "): " << conn.stats().objects_acked
              << " trades acknowledged\n";
    return 0;
}
