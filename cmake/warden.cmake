# Compiler flags shared by every target of ours (not by third-party code).
function(warden_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion)
  if(WARDEN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
endfunction()

if(WARDEN_SANITIZE)
  add_compile_options(-fsanitize=${WARDEN_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${WARDEN_SANITIZE})
endif()
