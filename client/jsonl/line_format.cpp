#include "client/jsonl/line_format.hpp"

#include "proto/json_writer.hpp"

namespace objwire::client {

std::optional<line_format::field> line_format::field_of(char c) {
    switch (c) {
        case 'o':
            return field::offset;
        case 's':
            return field::sender;
        case 'T':
            return field::time;
        case 't':
            return field::type;
        case 'j':
            return field::json;
        default:
            return std::nullopt;
    }
}

void line_format::add(field f, std::string_view text) {
    if (f == field::literal && !pieces_.empty() && pieces_.back().what == field::literal) {
        pieces_.back().text += text;
        return;
    }
    pieces_.push_back({f, std::string(text)});
}

bool line_format::parse(std::string_view spec, std::string& error) {
    pieces_.clear();
    for (std::size_t i = 0; i < spec.size(); ++i) {
        const char c = spec[i];
        if (c != '%' && c != '\\') {
            add(field::literal, spec.substr(i, 1));
            continue;
        }
        if (i + 1 == spec.size()) {
            error = std::string("--format ends in a lone '") + c + "' (write " +
                    (c == '%' ? "%% for a '%'" : "\\\\ for a backslash") + ")";
            return false;
        }
        const char n = spec[++i];
        if (c == '\\') {
            if (n != 't' && n != 'n' && n != '\\') {
                error = std::string("unknown escape \\") + n +
                        " in --format (known: \\t tab, \\n newline, \\\\ backslash)";
                return false;
            }
            add(field::literal, n == 't' ? "\t" : n == 'n' ? "\n" : "\\");
            continue;
        }
        if (n == '%') {
            add(field::literal, "%");
            continue;
        }
        const auto f = field_of(n);
        if (!f) {
            error = std::string("unknown field %") + n +
                    " in --format (known: %o offset, %s sender id, %T stored time in ms since "
                    "the epoch, %t record type, %j the object as JSON, %% a '%')";
            return false;
        }
        add(*f);
    }
    return true;
}

line_format line_format::envelope() {
    line_format f;
    f.add(field::literal, "{\"offset\":");
    f.add(field::offset);
    f.add(field::literal, ",\"sender\":");
    f.add(field::sender_json);
    f.add(field::literal, ",\"time\":");
    f.add(field::time);
    f.add(field::literal, ",\"object\":");
    f.add(field::json);
    f.add(field::literal, "}");
    return f;
}

void line_format::append(std::string& out, const stored_view& s) const {
    for (const auto& p : pieces_) {
        switch (p.what) {
            case field::literal:
                out += p.text;
                break;
            case field::offset:
                out += std::to_string(s.offset);
                break;
            case field::sender:
                out += s.sender;
                break;
            case field::sender_json:
                append_json_string(out, s.sender);
                break;
            case field::time:
                out += std::to_string(s.time_ms);
                break;
            case field::type:
                if (const auto* r = root_record(s.value); r && r->type) out += r->type->name;
                break;
            case field::json:
                append_json(s.value, out);
                break;
        }
    }
    out.push_back('\n');
}

const record* root_record(const message& m) {
    const value* v = &m.root;
    if (const auto* ref = v->get_if<object_ref>()) {
        if (ref->index >= m.objects.size()) return nullptr;
        v = &m.objects[ref->index];
    }
    return v->get_if<record>();
}

const std::string* raw_text(const message& m, std::string_view type, std::string_view field) {
    const record* r = root_record(m);
    if (!r || !r->type || (!type.empty() && r->type->name != type)) return nullptr;
    const int i = r->type->field_index(field);
    if (i < 0 || static_cast<std::size_t>(i) >= r->fields.size()) return nullptr;
    return r->fields[static_cast<std::size_t>(i)].get_if<std::string>();
}

}  // namespace objwire::client
