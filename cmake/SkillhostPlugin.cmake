# skillhost_add_plugin(NAME SOURCES src... MANIFEST manifest.yaml
#                      [OUTPUT_DIR dir] [INSTALL_DESTINATION dir] [NO_INSTALL] [LINK_LIBRARIES lib...])
#
# Builds a skill plugin the way skillhost expects: a MODULE library with hidden symbol visibility
# (only the entry symbol is exported) and -fno-gnu-unique (so dlclose really unloads it and a new
# version can be loaded), linked against the SDK headers only. After each build the library and its
# manifest are placed side by side in OUTPUT_DIR (default: ${CMAKE_CURRENT_BINARY_DIR}/plugins).
# `install()` puts both in INSTALL_DESTINATION (default: lib/skillhost/plugins), library first, each
# under a temporary name renamed into place. NO_INSTALL (or SKILLHOST_PLUGIN_NO_INSTALL set in the
# calling directory, as skillhost's own tests/ tree does for its test plugins) adds no install rule.
#
# The manifest's top-level `name` and `version` become the compile definitions SKILLHOST_PLUGIN_NAME
# and SKILLHOST_PLUGIN_VERSION (string literals), so the code need not repeat them; editing the
# manifest re-runs the configure step. When SKILLHOST_EXECUTABLE names a skillhost binary (the
# installed package sets it), the manifest is validated as a build step with
# `skillhost plugin validate`: a broken manifest fails the build with file:line:column of the
# source manifest, not of its copy.
#
# Shared by this source tree and the installed SkillhostSDK package, so built-in plugins are built
# exactly as third-party ones. Needs CMake 3.21 (file(COPY_FILE) in the install step).
include_guard(GLOBAL)

# Reads a top-level `key: value` of a block-style manifest (quotes and a trailing comment removed).
function(_skillhost_manifest_scalar manifest key out_var)
  file(STRINGS "${manifest}" lines REGEX "^${key}:")
  set(value "")
  if(lines)
    list(GET lines 0 line)
    string(REGEX REPLACE "^${key}:[ \t]*" "" value "${line}")
    string(REGEX REPLACE "[ \t]+#.*$" "" value "${value}")
    string(STRIP "${value}" value)
    string(REGEX REPLACE "^[\"']([^\"']*)[\"']$" "\\1" value "${value}")
  endif()
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

function(skillhost_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_INSTALL" "MANIFEST;OUTPUT_DIR;INSTALL_DESTINATION" "SOURCES;LINK_LIBRARIES")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "skillhost_add_plugin(${name}): SOURCES is required")
  endif()
  if(NOT arg_MANIFEST)
    message(FATAL_ERROR "skillhost_add_plugin(${name}): MANIFEST is required (the plugin's YAML manifest)")
  endif()
  get_filename_component(manifest_path "${arg_MANIFEST}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${manifest_path}")
    message(FATAL_ERROR "skillhost_add_plugin(${name}): manifest ${manifest_path} does not exist")
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/plugins")
  endif()
  if(NOT arg_INSTALL_DESTINATION)
    set(arg_INSTALL_DESTINATION "lib/skillhost/plugins")
  endif()

  add_library(${name} MODULE ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE SkillhostSDK::sdk ${arg_LINK_LIBRARIES})
  set_target_properties(${name} PROPERTIES
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${arg_OUTPUT_DIR}")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  endif()
  if(NOT APPLE)
    target_link_options(${name} PRIVATE -Wl,--no-undefined)
  endif()

  # The name and version are written once, in the manifest.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest_path}")
  _skillhost_manifest_scalar("${manifest_path}" name plugin_name)
  _skillhost_manifest_scalar("${manifest_path}" version plugin_version)
  if(plugin_name MATCHES "^[a-z][a-z0-9_-]*$")
    target_compile_definitions(${name} PRIVATE "SKILLHOST_PLUGIN_NAME=\"${plugin_name}\"")
  endif()
  if(plugin_version MATCHES "^[A-Za-z0-9.+_-]+$")
    target_compile_definitions(${name} PRIVATE "SKILLHOST_PLUGIN_VERSION=\"${plugin_version}\"")
  endif()

  # The manifest copy is a build output of its own (not a post-build step of the library), so
  # editing only the manifest still updates the copy beside the library. With a validator, the
  # copy is made only from a manifest that passed it.
  get_filename_component(manifest_name "${manifest_path}" NAME)
  set(manifest_copy "${arg_OUTPUT_DIR}/${manifest_name}")
  set(validate_command)
  if(SKILLHOST_EXECUTABLE)
    set(validate_command COMMAND "${SKILLHOST_EXECUTABLE}" plugin validate "${manifest_path}"
      --library "${CMAKE_SHARED_MODULE_PREFIX}${name}${CMAKE_SHARED_MODULE_SUFFIX}")
  endif()
  add_custom_command(OUTPUT "${manifest_copy}"
    ${validate_command}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${arg_OUTPUT_DIR}"
    COMMAND ${CMAKE_COMMAND} -E copy "${manifest_path}" "${manifest_copy}"
    DEPENDS "${manifest_path}"
    COMMENT "skillhost: checking manifest ${manifest_name} and placing it beside ${name}"
    VERBATIM)
  add_custom_target(${name}_manifest DEPENDS "${manifest_copy}")
  add_dependencies(${name} ${name}_manifest)

  if(arg_NO_INSTALL OR SKILLHOST_PLUGIN_NO_INSTALL)
    return()
  endif()

  # Install: each file goes in under a temporary name in its final directory and is renamed into
  # place (rename within one directory is atomic), so a running host watching the directory never
  # sees a half-written library. The library goes first and the manifest last: the manifest is what
  # the host discovers, and by the time it appears the library it names is complete.
  install(CODE "
    set(dest \"${arg_INSTALL_DESTINATION}\")
    if(NOT IS_ABSOLUTE \"\${dest}\")
      set(dest \"\${CMAKE_INSTALL_PREFIX}/\${dest}\")
    endif()
    set(dest \"\$ENV{DESTDIR}\${dest}\")
    file(MAKE_DIRECTORY \"\${dest}\")
    foreach(source \"$<TARGET_FILE:${name}>\" \"${manifest_path}\")
      get_filename_component(file_name \"\${source}\" NAME)
      message(STATUS \"Installing (copy, then rename): \${dest}/\${file_name}\")
      file(COPY_FILE \"\${source}\" \"\${dest}/.\${file_name}.tmp\")
      file(RENAME \"\${dest}/.\${file_name}.tmp\" \"\${dest}/\${file_name}\")
    endforeach()
  ")
endfunction()
