# Compiler flags shared by every target of ours (not by third-party code).
function(warden_target_defaults target)
  # -Wno-restrict: GCC 12 reports false positives inside std::string (GCC bug 105329).
  # -Wno-mismatched-new-delete: at -O3 GCC 12 takes Boost.Asio's aligned_alloc/free pair for a
  # new/free mismatch once coroutine frames are inlined; ASan's alloc-dealloc-mismatch check
  # covers real mismatches.
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion
                         $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict> $<$<CXX_COMPILER_ID:GNU>:-Wno-mismatched-new-delete>)
  if(WARDEN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(WARDEN_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # Instrumented builds make GCC 12 report false positives (stringop-overread in coroutine
    # frames) and warn that TSan cannot see Asio's atomic_thread_fence: the plain build keeps
    # these warnings as errors; the sanitizers themselves are what these builds are for.
    target_compile_options(${target} PRIVATE -Wno-stringop-overread -Wno-maybe-uninitialized)
    # A plain if(): WARDEN_SANITIZE may hold commas, which a generator expression cannot take.
    if(WARDEN_SANITIZE MATCHES "thread")
      target_compile_options(${target} PRIVATE -Wno-tsan)
    endif()
  endif()
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
endfunction()

if(WARDEN_SANITIZE)
  add_compile_options(-fsanitize=${WARDEN_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${WARDEN_SANITIZE})
endif()
