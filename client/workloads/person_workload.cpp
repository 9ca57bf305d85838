// The person workload (client/workloads/workloads.hpp): one fixed record, its age counting up.
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

class person_workload final : public workload {
  public:
    std::string_view name() const override { return "person"; }
    std::uint64_t default_count() const override { return 1'500'000; }

    void next(message& out) override {
        auto& f = assign_record(out.root, type_);
        assign_string(f[0], first_name);
        assign_string(f[1], surname);
        assign_int(f[2], age_++);
        out.objects.clear();
    }

    void next_json(std::string& out) override {
        char buf[96];
        char* p = put(buf, R"({"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":)");
        p = put_int(p, age_++);
        *p++ = '}';
        out.append(buf, p);
    }

  private:
    static constexpr std::string_view first_name = "Heinz";
    static constexpr std::string_view surname = "Kabutz";

    record_type_ptr type_ = make_record_type("Person", {"firstName", "surname", "age"});
    std::int64_t age_ = 0;
};

}  // namespace

std::unique_ptr<workload> make_person_workload() {
    return std::make_unique<person_workload>();
}

}  // namespace objwire::workloads
