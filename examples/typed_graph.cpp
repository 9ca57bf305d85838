// A graph with shared objects: a route whose stops are shared pointers to cities, the same
// city several times (one object on the wire, references after) and a cycle (each city points
// at the next, the last back at the first). Sent, read back, and checked that the identity
// survived: the same city is the same object again.
//
//   typed_graph HOST:PORT
#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include <objwire/typed.hpp>
#include <objwire/typed_read.hpp>

#include "trade.hpp"  // market::daemon_at

#include <iostream>
#include <memory>
#include <string>
#include <vector>

struct City {
    std::string name;
    std::shared_ptr<City> next;  // a ring: the last city points at the first
};
BOOST_DESCRIBE_STRUCT(City, (), (name, next))

struct Route {
    std::int64_t id = 0;
    std::vector<std::shared_ptr<City>> stops;
};
BOOST_DESCRIBE_STRUCT(Route, (), (id, stops))

// A cycle of shared_ptr never frees itself: break it when done.
void unlink(const std::vector<std::shared_ptr<City>>& cities) {
    for (const auto& c : cities)
        if (c) c->next.reset();
}

int main(int argc, char** argv) {
    objwire::client::options settings;
    if (!market::daemon_at(argc > 1 ? argv[1] : nullptr, settings)) {
        std::cerr << "usage: typed_graph HOST:PORT\n";
        return 2;
    }
    auto a = std::make_shared<City>(City{"Athens", nullptr});
    auto b = std::make_shared<City>(City{"Berlin", nullptr});
    auto c = std::make_shared<City>(City{"Cairo", nullptr});
    a->next = b;
    b->next = c;
    c->next = a;
    const Route route{7, {a, b, a, c, a}};

    objwire::client::connection conn(settings, "typed_graph example");
    if (auto ec = conn.open(); ec || (ec = conn.send(route)) || (ec = conn.close())) {
        std::cerr << "typed_graph: " << ec.message() << " " << conn.last_error() << "\n";
        return 1;
    }
    unlink({a, b, c});

    objwire::client::reader source(settings, {});
    if (auto ec = source.open()) {
        std::cerr << "typed_graph: " << source.last_error() << "\n";
        return 1;
    }
    // The daemon may hold other types too: pick the routes out by record name.
    objwire::client::stored_message m;
    Route back;
    bool found = false;
    while (!found && source.next(m)) {
        if (objwire::typed::root_record_name(m.value) != "Route") continue;
        if (auto st = objwire::typed::decode(m.value, back, m.offset)) {
            std::cerr << "typed_graph: " << st.detail << "\n";
            return 1;
        }
        found = back.id == 7;
    }
    source.close();
    const auto& s = back.stops;
    const bool ok = found && s.size() == 5 && s[0] == s[2] && s[0] == s[4] && s[0] != s[1] &&
                    s[3]->next == s[0] && s[0]->next->next == s[3];
    std::cout << "typed_graph: " << s.size() << " stops, "
              << (ok ? "shared cities and the ring came back as one object each" : "identity lost")
              << "\n";
    if (!s.empty()) unlink({s[0], s[1], s[3]});
    return ok ? 0 : 1;
}
