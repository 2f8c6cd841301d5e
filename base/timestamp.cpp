#include "base/timestamp.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace warden::base {

std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
  const auto floor_ms = ms - ((ms % 1000) + 1000) % 1000;  // whole seconds, also before 1970
  const std::time_t seconds = static_cast<std::time_t>(floor_ms / 1000);
  const int millis = static_cast<int>(ms - floor_ms);
  // Every audit record carries one: the date and time up to the second are formatted once per
  // second and thread, only the milliseconds each time.
  thread_local std::time_t cached_second = 0;
  thread_local char cached[80] = {};  // room for any int fields, as the compiler checks
  thread_local std::size_t cached_length = 0;
  if (seconds != cached_second || cached_length == 0) {
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    const int n = std::snprintf(cached, sizeof cached, "%04d-%02d-%02dT%02d:%02d:%02d.", parts.tm_year + 1900,
                                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec);
    cached_length = n > 0 ? std::min(static_cast<std::size_t>(n), sizeof cached - 1) : 0;
    cached_second = seconds;
  }
  std::string out(cached_length + 4, 'Z');  // the prefix, three digits of milliseconds, 'Z'
  std::memcpy(out.data(), cached, cached_length);
  out[cached_length] = static_cast<char>('0' + millis / 100);
  out[cached_length + 1] = static_cast<char>('0' + millis / 10 % 10);
  out[cached_length + 2] = static_cast<char>('0' + millis % 10);
  return out;
}

}  // namespace warden::base
