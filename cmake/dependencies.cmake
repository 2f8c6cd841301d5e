# Every dependency comes from Debian 12 packages (see README: set-up).
find_package(Threads REQUIRED)
find_package(Boost 1.81 EXACT REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(spdlog REQUIRED)
find_package(ICU REQUIRED COMPONENTS uc i18n)
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
find_package(CLI11 REQUIRED)
find_package(doctest REQUIRED)

# Asio and Beast are compiled once, in transports/asio_impl.cpp; every target that
# includes their headers links warden_asio and so sees the same configuration macros.
add_library(warden_asio_config INTERFACE)
target_compile_definitions(warden_asio_config INTERFACE
  BOOST_ASIO_SEPARATE_COMPILATION
  BOOST_BEAST_SEPARATE_COMPILATION
  BOOST_ASIO_NO_DEPRECATED)
target_link_libraries(warden_asio_config INTERFACE Boost::headers Threads::Threads OpenSSL::SSL OpenSSL::Crypto)
