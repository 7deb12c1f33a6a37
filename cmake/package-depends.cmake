# SPDX-License-Identifier: MIT
# Read by cpack before it makes the packages (CPACK_PROJECT_CONFIG_FILE): the layer package's
# Depends. dpkg-shlibdeps gives one dependency per symbol version the binaries use, so that
# ocl-icd-libopencl1 came four times (`ocl-icd-libopencl1 | libopencl1`, `(>= 1.0) |
# libopencl-1.2-1`, `(>= 2.2.8) | libopencl-2.1-1`, ...); a package needs only the strictest of
# each library's, which implies the others.
if(NOT CPACK_GENERATOR STREQUAL "DEB" OR NOT CPACK_ISG_LAYER_BINARIES)
  return()
endif()
file(STRINGS "${CPACK_ISG_LAYER_BINARIES}" isg_binaries)
set(isg_args "")
foreach(binary IN LISTS isg_binaries)
  if(NOT EXISTS "${binary}")
    message(FATAL_ERROR "package-depends: ${binary} is not built")
  endif()
  list(APPEND isg_args "-e${binary}")
endforeach()
# dpkg-shlibdeps reads debian/control from where it runs.
file(WRITE "${CPACK_ISG_SHLIBDEPS_DIR}/debian/control"
     "Source: intel-subgroups-layer\n\nPackage: intel-subgroups-layer\nArchitecture: any\n")
execute_process(COMMAND dpkg-shlibdeps -O ${isg_args} WORKING_DIRECTORY "${CPACK_ISG_SHLIBDEPS_DIR}"
                OUTPUT_VARIABLE isg_out ERROR_VARIABLE isg_err RESULT_VARIABLE isg_rc)
if(NOT isg_rc EQUAL 0 OR NOT isg_out MATCHES "shlibs:Depends=([^\n]*)")
  message(FATAL_ERROR "package-depends: dpkg-shlibdeps failed (${isg_rc}): ${isg_err}")
endif()
string(REPLACE ", " ";" isg_groups "${CMAKE_MATCH_1}")
# For each first alternative's package, the group with the highest version.
set(isg_names "")
foreach(group IN LISTS isg_groups)
  string(REGEX MATCH "^[^ |(]+" name "${group}")
  set(version 0)
  if(group MATCHES "^[^ |(]+ \\(>= ([^)]+)\\)")
    set(version "${CMAKE_MATCH_1}")
  endif()
  string(MAKE_C_IDENTIFIER "${name}" key)
  if(NOT DEFINED isg_version_${key})
    list(APPEND isg_names "${name}")
    set(isg_version_${key} "${version}")
    set(isg_group_${key} "${group}")
  else()
    # Debian versions may carry an epoch (1:1.2.0): compare what follows it.
    string(REGEX REPLACE "^[0-9]+:" "" new "${version}")
    string(REGEX REPLACE "^[0-9]+:" "" old "${isg_version_${key}}")
    if(new VERSION_GREATER old)
      set(isg_version_${key} "${version}")
      set(isg_group_${key} "${group}")
    endif()
  endif()
endforeach()
set(isg_depends "${CPACK_ISG_LAYER_DEPENDS}")
foreach(name IN LISTS isg_names)
  string(MAKE_C_IDENTIFIER "${name}" key)
  string(APPEND isg_depends ", ${isg_group_${key}}")
endforeach()
set(CPACK_DEBIAN_LAYER_PACKAGE_DEPENDS "${isg_depends}")
