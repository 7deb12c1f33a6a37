# SPDX-License-Identifier: MIT
# Which LLVM/Clang the rewriter is built against, and what comes with that version
# (docs/install.md): every version-dependent path of the build is read from here.
#   ISG_LLVM_VERSION      the major version: given, or the lowest supported one installed with
#                         Clang's static libraries (Debian 12: 15; Debian 13: 19)
#   ISG_LLVM_ROOT         /usr/lib/llvm-<version>
#   ISG_SPIRV_BRIDGE      whether SPIRV-LLVM-Translator of that version is there: without it the
#                         SPIR-V bridge (spirv/) is left out and programs from SPIR-V are the
#                         driver's alone, as without the layer
#   ISG_CLANG_TOOL        clang-<version> (tests compile OpenCL C with it; empty where absent)
#   ISG_LLVM_SPIRV_TOOL   llvm-spirv-<version> (tests make their SPIR-V with it; empty where absent)
set(ISG_LLVM_SUPPORTED 15 16 17 18 19)
set(ISG_LLVM_VERSION "" CACHE STRING
    "LLVM/Clang major version to build against (15 to 19); empty: the lowest one installed")

function(_isg_llvm_complete version out)
  set(root /usr/lib/llvm-${version})
  if(EXISTS ${root}/lib/cmake/llvm/LLVMConfig.cmake AND EXISTS ${root}/lib/libclangBasic.a)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

if(NOT ISG_LLVM_VERSION)
  foreach(version IN LISTS ISG_LLVM_SUPPORTED)
    _isg_llvm_complete(${version} complete)
    if(complete)
      set(ISG_LLVM_VERSION ${version} CACHE STRING "" FORCE)
      break()
    endif()
  endforeach()
  if(NOT ISG_LLVM_VERSION)
    message(FATAL_ERROR "No LLVM/Clang 15 to 19 with Clang's static libraries under /usr/lib/llvm-*: "
                        "install llvm-15-dev and libclang-15-dev (tools/install-deps.sh; "
                        "ISG_LLVM_VERSION=19 tools/install-deps.sh for 19)")
  endif()
endif()
if(NOT ISG_LLVM_VERSION IN_LIST ISG_LLVM_SUPPORTED)
  message(FATAL_ERROR "ISG_LLVM_VERSION=${ISG_LLVM_VERSION}: the layer builds against LLVM ${ISG_LLVM_SUPPORTED}")
endif()
_isg_llvm_complete(${ISG_LLVM_VERSION} complete)
if(NOT complete)
  message(FATAL_ERROR "ISG_LLVM_VERSION=${ISG_LLVM_VERSION}: /usr/lib/llvm-${ISG_LLVM_VERSION} lacks LLVM's "
                      "CMake files or Clang's static libraries (install llvm-${ISG_LLVM_VERSION}-dev "
                      "libclang-${ISG_LLVM_VERSION}-dev)")
endif()
set(ISG_LLVM_ROOT /usr/lib/llvm-${ISG_LLVM_VERSION})

# SPIRV-LLVM-Translator's library is versioned with the LLVM it was built on (Debian 12 has 15's
# only); one of another version would load a second, different libLLVM.
find_package(PkgConfig QUIET)
set(ISG_SPIRV_BRIDGE OFF)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(ISG_TRANSLATOR QUIET LLVMSPIRVLib)
  # (LLVM 17 removed the typed pointers the translator's modules are read with: 15 and 16 only.)
  if(ISG_TRANSLATOR_FOUND AND ISG_TRANSLATOR_VERSION MATCHES "^${ISG_LLVM_VERSION}\\." AND ISG_LLVM_VERSION LESS 17)
    set(ISG_SPIRV_BRIDGE ON)
  endif()
endif()

find_program(ISG_CLANG_TOOL NAMES clang-${ISG_LLVM_VERSION} PATHS ${ISG_LLVM_ROOT}/bin NO_DEFAULT_PATH)
find_program(ISG_CLANG_TOOL NAMES clang-${ISG_LLVM_VERSION})
find_program(ISG_LLVM_SPIRV_TOOL NAMES llvm-spirv-${ISG_LLVM_VERSION} PATHS ${ISG_LLVM_ROOT}/bin NO_DEFAULT_PATH)
find_program(ISG_LLVM_SPIRV_TOOL NAMES llvm-spirv-${ISG_LLVM_VERSION})

if(ISG_SPIRV_BRIDGE)
  set(_isg_spirv_note "with the SPIR-V bridge (SPIRV-LLVM-Translator ${ISG_TRANSLATOR_VERSION})")
else()
  string(CONCAT _isg_spirv_note "without the SPIR-V bridge: no SPIRV-LLVM-Translator ${ISG_LLVM_VERSION} "
         "(libllvmspirvlib-${ISG_LLVM_VERSION}-dev), so programs from SPIR-V are left to the driver")
endif()
message(STATUS "intel-subgroups-layer: LLVM/Clang ${ISG_LLVM_VERSION} (${ISG_LLVM_ROOT}; "
               "-DISG_LLVM_VERSION=N chooses another), ${_isg_spirv_note}")
