# SPDX-License-Identifier: MIT
# What `cmake --install` and the packages (cmake/package.cmake) put where; docs/install.md is the
# user's side of it. Two components: `layer` (the layer, its rewriter library with Clang and
# LLVM linked in, the tools, the docs, the registration and the CMake package) and `spirv` (the SPIR-V
# translator bridge, which needs Debian's shared libLLVM-15 and SPIRV-LLVM-Translator).

install(TARGETS IntelSubgroupsLayer EXPORT IntelSubgroupsLayerTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT layer)
set(isg_installed_tools "")
foreach(tool isg-replay isg-rewrite isg-binary isg-demo)
  if(TARGET ${tool})
    list(APPEND isg_installed_tools ${tool})
  endif()
endforeach()
install(TARGETS ${isg_installed_tools} EXPORT IntelSubgroupsLayerTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT layer)
install(TARGETS IntelSubgroupsRewriter LIBRARY DESTINATION ${ISG_INSTALL_PRIVATEDIR} COMPONENT layer)
if(TARGET IntelSubgroupsSpirv)
  install(TARGETS IntelSubgroupsSpirv
          LIBRARY DESTINATION ${ISG_INSTALL_PRIVATEDIR} COMPONENT spirv)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT layer)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT layer FILES_MATCHING PATTERN "*.md")

# Each package's copyright and changelog in /usr/share/doc/<package> (Debian policy 12.5, 12.7);
# a release names its version in cmake/debian/changelog first.
file(STRINGS ${PROJECT_SOURCE_DIR}/cmake/debian/changelog isg_changelog_top LIMIT_COUNT 1)
if(NOT isg_changelog_top MATCHES "^intel-subgroups-layer \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "cmake/debian/changelog's first entry is not version ${PROJECT_VERSION}: ${isg_changelog_top}")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/debian/changelog)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/package-doc)
execute_process(COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/cmake/debian/changelog
                OUTPUT_FILE ${CMAKE_BINARY_DIR}/package-doc/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
set(isg_components layer)
if(TARGET IntelSubgroupsSpirv)
  list(APPEND isg_components spirv)
endif()
foreach(isg_component ${isg_components})
  set(isg_doc ${CMAKE_INSTALL_DOCDIR})
  if(isg_component STREQUAL "spirv")
    set(isg_doc ${CMAKE_INSTALL_DATAROOTDIR}/doc/intel-subgroups-layer-spirv)
  endif()
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/copyright ${CMAKE_BINARY_DIR}/package-doc/changelog.gz
          DESTINATION ${isg_doc} COMPONENT ${isg_component})
endforeach()

# The registration file (.lay) holds the installed layer's absolute path, so it is written at
# install time for the prefix installed to (a package is made with the prefix /usr and DESTDIR;
# cmake --install --prefix P writes P's path). Its folder follows GNUInstallDirs' rule for
# sysconfdir, /etc for /usr, unless ISG_LAYER_REGISTRY_DIR names one.
set(ISG_LAYER_REGISTRATION intel-subgroups-layer.lay)
install(CODE "
  set(isg_registry \"${ISG_LAYER_REGISTRY_DIR}\")
  if(NOT isg_registry)
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\" OR CMAKE_INSTALL_PREFIX STREQUAL \"/usr/\")
      set(isg_registry /etc/OpenCL/layers)
    elseif(CMAKE_INSTALL_PREFIX MATCHES \"^/opt/\")
      set(isg_registry \"/etc\${CMAKE_INSTALL_PREFIX}/OpenCL/layers\")
    else()
      set(isg_registry \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SYSCONFDIR}/OpenCL/layers\")
    endif()
  endif()
  # One staging folder per destination: installs to several prefixes may run at once.
  string(MD5 isg_key \"\$ENV{DESTDIR}\${isg_registry}\")
  set(isg_lay \"${CMAKE_BINARY_DIR}/install-registry/\${isg_key}/${ISG_LAYER_REGISTRATION}\")
  file(WRITE \"\${isg_lay}\"
       \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:IntelSubgroupsLayer>\\n\")
  file(INSTALL DESTINATION \"\${isg_registry}\" TYPE FILE FILES \"\${isg_lay}\")
" COMPONENT layer)

# find_package(IntelSubgroupsLayer) gives IntelSubgroupsLayer::IntelSubgroupsLayer (its
# TARGET_FILE is what OPENCL_LAYERS takes) and the tools as imported executables.
include(CMakePackageConfigHelpers)
set(isg_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/IntelSubgroupsLayer)
install(EXPORT IntelSubgroupsLayerTargets NAMESPACE IntelSubgroupsLayer:: DESTINATION ${isg_cmake_dir}
        COMPONENT layer)
file(WRITE ${CMAKE_BINARY_DIR}/install-cmake/IntelSubgroupsLayerConfig.cmake
     "include(\"\${CMAKE_CURRENT_LIST_DIR}/IntelSubgroupsLayerTargets.cmake\")\n")
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install-cmake/IntelSubgroupsLayerConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install-cmake/IntelSubgroupsLayerConfig.cmake
              ${CMAKE_BINARY_DIR}/install-cmake/IntelSubgroupsLayerConfigVersion.cmake
        DESTINATION ${isg_cmake_dir} COMPONENT layer)
