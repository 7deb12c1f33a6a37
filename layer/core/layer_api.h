// SPDX-License-Identifier: MIT
// What the layer's dispatch table is made of: the entries it intercepts, the next layer's table
// it forwards to, and the guard every entry point runs its body under.
#pragma once

#include <CL/cl_icd.h>

#include <cstddef>
#include <new>
#include <type_traits>

#include "core/controls.h"
#include "core/logger.h"

// Every entry the layer replaces. The table is filled from this list, and the loader must give
// the layer at least as many entries as the last one of them needs.
#define ISG_INTERCEPTED_ENTRIES(X) \
  X(clGetDeviceIDs)                \
  X(clGetDeviceInfo)               \
  X(clCreateContextFromType)       \
  X(clCreateProgramWithSource)     \
  X(clCreateProgramWithBinary)     \
  X(clCreateProgramWithBuiltInKernels) \
  X(clCreateProgramWithIL)         \
  X(clBuildProgram)                \
  X(clCompileProgram)              \
  X(clLinkProgram)                 \
  X(clRetainProgram)               \
  X(clReleaseProgram)              \
  X(clGetProgramInfo)              \
  X(clGetProgramBuildInfo)         \
  X(clCreateKernel)                \
  X(clCreateKernelsInProgram)      \
  X(clCloneKernel)                 \
  X(clRetainKernel)                \
  X(clReleaseKernel)               \
  X(clSetKernelArg)                \
  X(clSetKernelArgSVMPointer)      \
  X(clSetKernelExecInfo)           \
  X(clGetKernelInfo)               \
  X(clGetKernelArgInfo)            \
  X(clGetKernelWorkGroupInfo)      \
  X(clEnqueueNDRangeKernel)        \
  X(clEnqueueTask)                 \
  X(clGetKernelSubGroupInfo)       \
  X(clGetKernelSubGroupInfoKHR)    \
  X(clGetExtensionFunctionAddress) \
  X(clGetExtensionFunctionAddressForPlatform)

namespace isg {

// The layer's replacement for entry `name` is `name##_layer`, with exactly the dispatch type.
// Deprecated entries (clGetExtensionFunctionAddress) are still in every loader's table.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define ISG_DECLARE_LAYER_ENTRY(name) std::remove_pointer_t<cl_api_##name> name##_layer;
ISG_INTERCEPTED_ENTRIES(ISG_DECLARE_LAYER_ENTRY)
#undef ISG_DECLARE_LAYER_ENTRY
#pragma GCC diagnostic pop

// With ISG_CAPTURE_DIR set, the layer's clSetKernelArg and clSetKernelArgSVMPointer in `table`
// become the entries that look up every handle for capture; without it, theirs never ask
// (kernel_args.cpp). Called once, by clInitLayer.
void useCapturingArgEntries(cl_icd_dispatch& table);

// clCreateProgramWithILKHR for clGetExtensionFunctionAddress(ForPlatform), where the driver has
// one (`driverHas`) or the layer advertises cl_khr_il_program on `platform`; nullptr for every
// other name (il_programs.cpp).
void* ilExtensionFunction(const char* name, bool driverHas, cl_platform_id platform);

namespace detail {

// Loaders newer than our headers pass more entries than cl_icd_dispatch has; the extra ones are
// forwarded untouched, so the tables are kept as raw entry arrays this long.
constexpr std::size_t kMaxDispatchEntries = 1024;

union DispatchTable {
  cl_icd_dispatch table;
  void* entries[kMaxDispatchEntries];
};
static_assert(sizeof(cl_icd_dispatch) % sizeof(void*) == 0, "dispatch entries are pointers");

// Written once by clInitLayer (loader_entry.cpp), before the loader can call any entry. Declared
// here so that per-call entries (clSetKernelArg) read them without a function call; hidden so
// the reads need no GOT.
#define ISG_HIDDEN __attribute__((visibility("hidden")))
extern DispatchTable g_nextDispatch ISG_HIDDEN;
extern Config g_config ISG_HIDDEN;
#undef ISG_HIDDEN

}  // namespace detail

// The next layer's (or the driver's) entries. Entries the loader did not hand over are NULL.
inline const cl_icd_dispatch& next() { return detail::g_nextDispatch.table; }

// The configuration read when the loader initialised the layer.
inline const Config& config() { return detail::g_config; }

// Runs an entry point's body; the layer must never let an exception reach the application.
template <class Body>
cl_int guardedEntry(const char* api, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    ISG_LOG_ERROR(api << ": out of host memory");
  } catch (...) {
    ISG_LOG_ERROR(api << ": internal error");
  }
  return CL_OUT_OF_HOST_MEMORY;
}

// The same for entries that return an object and report through errcode_ret.
template <class Object, class Body>
Object guardedCreate(const char* api, cl_int* errcode_ret, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    ISG_LOG_ERROR(api << ": out of host memory");
  } catch (...) {
    ISG_LOG_ERROR(api << ": internal error");
  }
  if (errcode_ret) *errcode_ret = CL_OUT_OF_HOST_MEMORY;
  return nullptr;
}

}  // namespace isg

// A NULL next entry means the driver lacks the function: answer as the loader contract asks
// instead of calling through it.
#define ISG_REQUIRE_NEXT(entry) \
  if (!::isg::next().entry) return CL_INVALID_OPERATION

#define ISG_REQUIRE_NEXT_CREATE(entry, errcode_ret)         \
  if (!::isg::next().entry) {                               \
    if (errcode_ret) *(errcode_ret) = CL_INVALID_OPERATION; \
    return nullptr;                                         \
  }
