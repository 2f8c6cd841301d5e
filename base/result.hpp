#pragma once
// A value or a precise error message: the expected-style result used by parsing and config code.
#include <string>
#include <utility>
#include <variant>

namespace warden {

struct error {
  std::string message;
};

template <typename T>
class result {
 public:
  result(T value) : state_(std::move(value)) {}          // NOLINT: implicit by design
  result(error failure) : state_(std::move(failure)) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error_message() const { return std::get<1>(state_).message; }

 private:
  std::variant<T, error> state_;
};

}  // namespace warden
