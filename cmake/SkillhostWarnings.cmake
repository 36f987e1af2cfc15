# Warning flags for every target built in this tree (not exported to plugin authors).
function(skillhost_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor)
  if(SKILLHOST_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
