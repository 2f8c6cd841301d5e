#pragma once
// The one time format of records and pins. Thread-safe (a per-thread cache of the formatted second).
#include <chrono>
#include <string>

namespace warden::base {

// A UTC time (default: now) as 2025-01-31T12:34:56.789Z.
std::string utc_timestamp(std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

}  // namespace warden::base
