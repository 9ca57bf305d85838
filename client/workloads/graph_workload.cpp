// The graph workload (client/workloads/workloads.hpp): a trip of 1,000 stops over 100 shared
// points.
#include "client/workloads/workload_text.hpp"
#include "client/workloads/workload_values.hpp"
#include "client/workloads/workloads.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace objwire::workloads {
namespace {

using namespace detail;

class graph_workload final : public workload {
  public:
    explicit graph_workload(std::uint64_t seed) : rng_(seed) {}

    std::string_view name() const override { return "graph"; }
    std::uint64_t default_count() const override { return 10'000; }

    void next(message& out) override {
        draw();
        assign_ref(out.root, 0);
        out.objects.reserve(1 + point_count);  // the point count varies; keep one buffer
        out.objects.resize(1 + points_.size());

        auto& trip = assign_record(out.objects[0], trip_type_);
        assign_int(trip[0], id_);
        auto& stops = assign_list(trip[1], stop_count);
        for (std::size_t i = 0; i < stop_count; ++i)
            assign_ref(stops[i], stops_[i]);
        assign_ref(trip[2], 0);

        for (std::size_t i = 0; i < points_.size(); ++i) {
            auto& point = assign_record(out.objects[1 + i], point_type_);
            assign_int(point[0], points_[i].x);
            assign_int(point[1], points_[i].y);
        }
    }

    void next_json(std::string& out) override {
        draw();
        char buf[64];
        char* p = put(buf, R"({"$id":0,"$type":"Trip","id":)");
        p = put_int(p, id_);
        p = put(p, R"(,"stops":[)");
        out.append(buf, p);

        std::uint32_t next_new = 1;  // canonical order: a point is new exactly when it is next
        for (std::size_t i = 0; i < stop_count; ++i) {
            p = buf;
            if (i > 0) *p++ = ',';
            auto index = stops_[i];
            if (index == next_new) {
                ++next_new;
                p = put(p, R"({"$id":)");
                p = put_int(p, index);
                p = put(p, R"(,"$type":"Point","x":)");
                p = put_int(p, points_[index - 1].x);
                p = put(p, R"(,"y":)");
                p = put_int(p, points_[index - 1].y);
            } else {
                p = put(p, R"({"$ref":)");
                p = put_int(p, index);
            }
            *p++ = '}';
            out.append(buf, p);
        }
        out += R"(],"back":{"$ref":0}})";
    }

  private:
    static constexpr std::size_t point_count = 100;
    static constexpr std::size_t stop_count = 1000;

    struct point {
        std::int64_t x = 0;
        std::int64_t y = 0;
    };

    // One Trip: the points, then the stops; stops_ holds canonical object indexes (1..).
    void draw() {
        id_ = next_id_++;
        for (auto& pt : drawn_) {
            pt.x = static_cast<std::int64_t>(rng_.below(10000));
            pt.y = static_cast<std::int64_t>(rng_.below(10000));
        }
        index_of_.fill(0);  // 0: not met yet (object 0 is the Trip)
        points_.clear();
        for (auto& stop : stops_) {
            auto which = rng_.below(point_count);
            if (index_of_[which] == 0) {
                points_.push_back(drawn_[which]);
                index_of_[which] = static_cast<std::uint32_t>(points_.size());
            }
            stop = index_of_[which];
        }
    }

    splitmix64 rng_;
    std::int64_t next_id_ = 0;
    record_type_ptr trip_type_ = make_record_type("Trip", {"id", "stops", "back"});
    record_type_ptr point_type_ = make_record_type("Point", {"x", "y"});

    std::int64_t id_ = 0;
    std::array<point, point_count> drawn_;
    std::array<std::uint32_t, point_count> index_of_{};
    std::vector<point> points_ = std::vector<point>(point_count);  // in canonical order
    std::array<std::uint32_t, stop_count> stops_{};
};

}  // namespace

std::unique_ptr<workload> make_graph_workload(std::uint64_t seed) {
    return std::make_unique<graph_workload>(seed);
}

}  // namespace objwire::workloads
