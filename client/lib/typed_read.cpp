#include <objwire/typed_read.hpp>

namespace objwire::typed {

const std::error_category& typed_category() noexcept {
    static const struct : std::error_category {
        const char* name() const noexcept override { return "objwire.typed"; }
        std::string message(int c) const override {
            switch (static_cast<typed_errc>(c)) {
                case typed_errc::wrong_type:
                    return "stored value is not of the field's type";
                case typed_errc::out_of_range:
                    return "stored integer does not fit the field's type";
                case typed_errc::unknown_enumerator:
                    return "stored name is none of the enum's enumerators";
                case typed_errc::wrong_record:
                    return "stored record is of another type";
                case typed_errc::refused_value:
                    return "stored value is refused by the field type's wire_form";
            }
            return "unknown typed error";
        }
    } category;
    return category;
}

std::string_view root_record_name(const message& m) {
    const value* root = &m.root;
    if (const auto* ref = root->get_if<object_ref>(); ref && ref->index < m.objects.size())
        root = &m.objects[ref->index];
    const auto* r = root->get_if<record>();
    return r && r->type ? std::string_view(r->type->name) : std::string_view();
}

namespace detail {

const char* kind_name(const value& v) {
    switch (v.type()) {
        case value::kind::null:
            return "null";
        case value::kind::boolean:
            return "bool";
        case value::kind::integer:
            return "integer";
        case value::kind::floating:
            return "float";
        case value::kind::string:
            return "string";
        case value::kind::bytes:
            return "bytes";
        case value::kind::list:
            return "list";
        case value::kind::map:
            return "map";
        case value::kind::record:
            return "record";
        case value::kind::object_ref:
            return "shared object";
        case value::kind::lazy:
            return "lazy value";
    }
    return "value";
}

bool read_context::fail(typed_errc e, std::string_view expected, const value& found) {
    std::string text = "expected ";
    text.append(expected).append(", found ").append(kind_name(found));
    if (const auto* i = found.get_if<std::int64_t>(); i && e == typed_errc::out_of_range)
        text.append(" ").append(std::to_string(*i)).append(" out of the field's range");
    return fail(e, std::move(text));
}

bool read_context::fail(typed_errc e, std::string text) {
    if (status) return false;  // the first error is the one reported
    status.code = e;
    status.detail = path + ": " + text + " (message at offset " + std::to_string(offset_) + ")";
    return false;
}

const value& expanded(const value& v, value& scratch, read_context& cx) {
    const auto* l = v.get_if<lazy_value>();
    if (!l) return v;
    auto r = expand_lazy(*l, decoder_limits{});
    if (!r) {
        cx.fail(typed_errc::wrong_type, "a lazy value that expands: " + r.error().message());
        return v;
    }
    scratch = std::move(*r);
    return scratch;
}

}  // namespace detail
}  // namespace objwire::typed
