// A small expected-like result for non-I/O returns (C++20 has no std::expected).
#pragma once

#include <cassert>
#include <system_error>
#include <utility>
#include <variant>

namespace objwire {

template <class T>
class result {
  public:
    result(T v) : v_(std::move(v)) {}                    // NOLINT: implicit by design
    result(std::error_code ec) : v_(ec) { assert(ec); }  // NOLINT
    template <class E, class = std::enable_if_t<std::is_error_code_enum_v<E>>>
    result(E e) : result(std::error_code(make_error_code(e))) {}  // NOLINT

    bool has_value() const { return v_.index() == 0; }
    explicit operator bool() const { return has_value(); }
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    std::error_code error() const { return has_value() ? std::error_code{} : std::get<1>(v_); }

  private:
    std::variant<T, std::error_code> v_;
};

}  // namespace objwire
