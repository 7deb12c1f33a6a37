# SPDX-License-Identifier: MIT
# The Debian packages (`cpack` in the build folder; docs/install.md): one per install component
# (cmake/install.cmake). Dependencies come from dpkg-shlibdeps on what each package holds, so the
# layer's are the C/C++ runtime, zlib and libtinfo (Clang and LLVM are linked in) and the SPIR-V
# package's are Debian's libLLVM and SPIRV-LLVM-Translator of the version built with, plus the
# libclc the build found (the OpenCL C library that programs from SPIR-V are linked with on
# NVIDIA). Without the SPIR-V bridge (cmake/llvm.cmake) there is no second package.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME intel-subgroups-layer)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "intel-subgroups-layer developers")
set(CPACK_PACKAGE_CONTACT "intel-subgroups-layer developers <intel-subgroups-layer@users.noreply.github.com>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_STRIP_FILES ON)  # Clang inside makes the unstripped layer several times larger
# The registration file's path is absolute and written at install time (cmake/install.cmake):
# packages install with the prefix they are for, into a DESTDIR.
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL layer)
if(ISG_SPIRV_BRIDGE)
  list(APPEND CPACK_COMPONENTS_ALL spirv)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENT_LAYER_DISPLAY_NAME "OpenCL layer")
set(CPACK_DEBIAN_LAYER_PACKAGE_NAME intel-subgroups-layer)
# Its front end for NVIDIA (half, OpenCL C NVIDIA's compiler rejects, non-uniform work-groups)
# links libclc's nvptx64--nvidiacl.bc: without it the layer offers no cl_khr_fp16 there.
# Depends is dpkg-shlibdeps's on the package's binaries, each library once (package-depends.cmake).
set(CPACK_DEBIAN_LAYER_PACKAGE_SHLIBDEPS OFF)
set(CPACK_ISG_LAYER_DEPENDS "libclc-${ISG_LIBCLC_VERSION}")
set(CPACK_ISG_LAYER_BINARIES ${CMAKE_BINARY_DIR}/package-control/layer-binaries.txt)
set(CPACK_ISG_SHLIBDEPS_DIR ${CMAKE_BINARY_DIR}/package-control/shlibdeps)
set(isg_layer_binaries "")
foreach(target IntelSubgroupsLayer IntelSubgroupsRewriter ${isg_installed_tools})
  string(APPEND isg_layer_binaries "$<TARGET_FILE:${target}>\n")
endforeach()
file(GENERATE OUTPUT ${CPACK_ISG_LAYER_BINARIES} CONTENT "${isg_layer_binaries}")
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/package-depends.cmake)
# The first line is the synopsis, the rest the extended description (with no
# CPACK_PACKAGE_DESCRIPTION_SUMMARY, CPack takes them as they are).
set(CPACK_DEBIAN_LAYER_DESCRIPTION
    "OpenCL layer that adds Intel's sub-group extensions to any OpenCL driver
Intel's cl_intel_subgroups family (shuffles, block reads and writes, media block IO,
reductions and scans, required sub-group sizes) for any OpenCL driver, as an ICD-loader
layer: it rewrites the Intel builtins per device into NVIDIA warp instructions, the
driver's cl_khr_subgroup builtins or a local-memory emulation, and answers the sub-group
queries. It registers itself in /etc/OpenCL/layers for the loaders that read system
layers (the Khronos ICD loader, ocl-icd 2.3.2 and later); with Debian 12's ocl-icd 2.3.1,
enable it with OPENCL_LAYERS. Tools: isg-replay, isg-rewrite, isg-binary, isg-demo.")
if(ISG_SPIRV_BRIDGE)
  set(CPACK_DEBIAN_LAYER_PACKAGE_RECOMMENDS "intel-subgroups-layer-spirv")
endif()
set(CPACK_DEBIAN_LAYER_PACKAGE_SUGGESTS "clinfo")
# A file shipped in /etc is the administrator's (Debian policy 10.7): kept on remove, gone on purge.
file(WRITE ${CMAKE_BINARY_DIR}/package-control/conffiles "/etc/OpenCL/layers/${ISG_LAYER_REGISTRATION}\n")
set(CPACK_DEBIAN_LAYER_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/package-control/conffiles)

set(CPACK_COMPONENT_SPIRV_DISPLAY_NAME "SPIR-V input for the OpenCL layer")
set(CPACK_DEBIAN_SPIRV_PACKAGE_NAME intel-subgroups-layer-spirv)
set(CPACK_COMPONENT_SPIRV_DEPENDS layer)
set(CPACK_DEBIAN_SPIRV_PACKAGE_DEPENDS "libclc-${ISG_LIBCLC_VERSION}")
set(CPACK_DEBIAN_SPIRV_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_SPIRV_DESCRIPTION
    "SPIR-V programs (clCreateProgramWithIL) for intel-subgroups-layer
The bridge between intel-subgroups-layer and SPIRV-LLVM-Translator: with it the layer
reads SPIR-V modules that use SPV_INTEL_subgroups, rewrites them like OpenCL C programs
and hands the driver SPIR-V, SPIR or, on NVIDIA, PTX.")

include(CPack)
