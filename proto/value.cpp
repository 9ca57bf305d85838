#include "proto/value.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <string_view>
#include <unordered_map>

namespace objwire {

int record_type::field_index(std::string_view field) const {
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (fields[i] == field) return static_cast<int>(i);
    return -1;
}

record_type_ptr make_record_type(std::string name, std::vector<std::string> fields) {
    return std::make_shared<const record_type>(record_type{std::move(name), std::move(fields)});
}

std::size_t first_duplicate_field(const std::vector<std::string>& names) {
    // A few names: comparing each pair beats building a set.
    constexpr std::size_t pairwise_up_to = 16;
    if (names.size() <= pairwise_up_to) {
        for (std::size_t i = 1; i < names.size(); ++i)
            for (std::size_t j = 0; j < i; ++j)
                if (names[i] == names[j]) return i;
        return names.size();
    }
    // Open addressing over the names' indices: one allocation, none per name.
    const std::size_t slots = std::bit_ceil(names.size() * 2);
    std::vector<std::size_t> index(slots, 0);  // a name's index + 1; 0: free
    for (std::size_t i = 0; i < names.size(); ++i) {
        for (std::size_t h = std::hash<std::string_view>{}(names[i]);; ++h) {
            auto& slot = index[h & (slots - 1)];
            if (slot == 0) {
                slot = i + 1;
                break;
            }
            if (names[slot - 1] == names[i]) return i;
        }
    }
    return names.size();
}

lazy_value::lazy_value(codec_id codec, std::uint32_t raw_size, std::vector<std::uint8_t> stored)
    : d_(std::make_shared<const data>(data{codec, raw_size, std::move(stored)})) {}

bool lazy_value::operator==(const lazy_value& o) const {
    if (d_ == o.d_) return true;
    const auto a = stored();
    const auto b = o.stored();
    return codec() == o.codec() && raw_size() == o.raw_size() &&
           std::equal(a.begin(), a.end(), b.begin(), b.end());
}

bool contains_object_refs(const value& v) {
    switch (v.type()) {
        case value::kind::object_ref:
            return true;
        case value::kind::list:
            for (const auto& e : v.get<list>())
                if (contains_object_refs(e)) return true;
            return false;
        case value::kind::map:
            for (const auto& [k, e] : v.get<map>())
                if (contains_object_refs(e)) return true;
            return false;
        case value::kind::record:
            for (const auto& e : v.get<record>().fields)
                if (contains_object_refs(e)) return true;
            return false;
        default:
            return false;
    }
}

value make_record(const record_type_ptr& type, std::vector<value> fields) {
    return value(record{type, std::move(fields)});
}

namespace {

// Walks values in encoder order, assigning new indexes to objects on first sight.
class canonicalizer {
  public:
    explicit canonicalizer(const message& in) : in_(in) {}

    message run() {
        out_.root = visit(in_.root);
        return std::move(out_);
    }

  private:
    value visit(const value& v) {
        switch (v.type()) {
            case value::kind::list: {
                list l;
                l.reserve(v.get<list>().size());
                for (const auto& e : v.get<list>())
                    l.push_back(visit(e));
                return l;
            }
            case value::kind::map: {
                map m;
                m.reserve(v.get<map>().size());
                for (const auto& [k, e] : v.get<map>())
                    m.emplace_back(k, visit(e));
                return m;
            }
            case value::kind::record: {
                const auto& r = v.get<record>();
                std::vector<value> fields;
                fields.reserve(r.fields.size());
                for (const auto& e : r.fields)
                    fields.push_back(visit(e));
                return record{r.type, std::move(fields)};
            }
            case value::kind::object_ref:
                return visit_ref(v.get<object_ref>().index);
            default:
                return v;
        }
    }

    value visit_ref(std::uint32_t old_index) {
        auto it = renumber_.find(old_index);
        if (it != renumber_.end()) return object_ref{it->second};
        auto index = static_cast<std::uint32_t>(out_.objects.size());
        renumber_.emplace(old_index, index);
        out_.objects.emplace_back();  // reserve the slot before the body: cycles point here
        value body = old_index < in_.objects.size() ? visit(in_.objects[old_index]) : value{};
        out_.objects[index] = std::move(body);
        return object_ref{index};
    }

    const message& in_;
    message out_;
    std::unordered_map<std::uint32_t, std::uint32_t> renumber_;
};

}  // namespace

message canonical(const message& m) {
    return canonicalizer(m).run();
}

}  // namespace objwire
