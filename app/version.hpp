#pragma once
namespace warden::app {
inline constexpr const char* version = "0.1.0";
}
