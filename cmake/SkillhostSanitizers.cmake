# ASan + UBSan for the whole tree (preset `asan`). Plugins get it too, so the host and the plugins it
# loads share one runtime.
if(SKILLHOST_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
