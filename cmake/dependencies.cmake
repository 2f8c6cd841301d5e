# Every dependency comes from Debian 12 packages (see README: set-up).
find_package(Threads REQUIRED)
find_package(Boost 1.81 EXACT REQUIRED COMPONENTS url)  # Boost.URL is compiled: Debian's libboost-url1.81-dev
find_package(nlohmann_json 3.11 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(spdlog REQUIRED)
find_package(ICU REQUIRED COMPONENTS uc i18n)
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
find_package(CLI11 REQUIRED)
find_package(doctest REQUIRED)
find_package(tomlplusplus 3 REQUIRED)  # Codex's config.toml (Debian: libtomlplusplus-dev)

# The binary's allocator. The full policy path hands every call's documents and audit record from
# the relay thread to the audit writer's; glibc's malloc pays for that in arena locks and
# consolidation, tcmalloc_minimal does not (docs/benchmarks.md, "Why the figures look like this").
# Sanitizers and libFuzzer bring their own malloc.
add_library(warden_allocator INTERFACE)
set(WARDEN_ALLOCATOR_NAME "glibc malloc")
if(WARDEN_ALLOCATOR STREQUAL "tcmalloc" OR (WARDEN_ALLOCATOR STREQUAL "auto" AND NOT WARDEN_SANITIZE AND NOT WARDEN_FUZZ))
  if(WARDEN_ALLOCATOR STREQUAL "tcmalloc")
    pkg_check_modules(TCMALLOC REQUIRED IMPORTED_TARGET libtcmalloc_minimal)
  else()
    pkg_check_modules(TCMALLOC IMPORTED_TARGET libtcmalloc_minimal)
  endif()
  if(TCMALLOC_FOUND)
    # --no-as-needed: nothing calls tcmalloc by name; it must still be loaded, ahead of libc.
    target_link_libraries(warden_allocator INTERFACE "-Wl,--no-as-needed" PkgConfig::TCMALLOC)
    target_compile_definitions(warden_allocator INTERFACE WARDEN_TCMALLOC=1)
    set(WARDEN_ALLOCATOR_NAME "tcmalloc_minimal ${TCMALLOC_VERSION}")
  else()
    message(STATUS "libtcmalloc_minimal not found (Debian: libgoogle-perftools-dev): mcp-warden uses glibc's malloc")
  endif()
elseif(NOT WARDEN_ALLOCATOR MATCHES "^(auto|system)$")
  message(FATAL_ERROR "WARDEN_ALLOCATOR must be auto, tcmalloc or system, not '${WARDEN_ALLOCATOR}'")
endif()
message(STATUS "mcp-warden allocator: ${WARDEN_ALLOCATOR_NAME}")
target_compile_definitions(warden_allocator INTERFACE WARDEN_ALLOCATOR_NAME="${WARDEN_ALLOCATOR_NAME}")

# Asio and Beast are compiled once, in transports/asio_impl.cpp; every target that
# includes their headers links warden_asio and so sees the same configuration macros.
add_library(warden_asio_config INTERFACE)
target_compile_definitions(warden_asio_config INTERFACE
  BOOST_ASIO_SEPARATE_COMPILATION
  BOOST_BEAST_SEPARATE_COMPILATION
  BOOST_ASIO_NO_DEPRECATED)
target_link_libraries(warden_asio_config INTERFACE Boost::headers Threads::Threads OpenSSL::SSL OpenSSL::Crypto)
