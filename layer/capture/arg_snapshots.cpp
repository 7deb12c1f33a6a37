// SPDX-License-Identifier: MIT
// Argument snapshots (arg_snapshots.h, enqueue_capture.h's argument tracking).
#include "capture/arg_snapshots.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "capture/capture_error.h"
#include "capture/enqueue_capture.h"
#include "core/driver_queries.h"
#include "core/layer_api.h"

namespace isg::capture {

namespace {

// Argument indices are validated by the driver before they are remembered; this bound only keeps
// a misbehaving driver from making the layer allocate without limit.
constexpr cl_uint kMaxArgs = 4096;

class ArgTable {
 public:
  template <class Update>
  void update(cl_kernel kernel, Update&& fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    fn(kernels_[kernel]);
  }
  bool snapshot(cl_kernel kernel, KernelArgs* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kernels_.find(kernel);
    if (it == kernels_.end()) return false;
    *out = it->second;
    return true;
  }
  void forget(cl_kernel kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    kernels_.erase(kernel);
  }
  void copy(cl_kernel from, cl_kernel to) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kernels_.find(from);
    if (it != kernels_.end()) kernels_[to] = it->second;
  }

 private:
  std::mutex mutex_;
  std::map<cl_kernel, KernelArgs> kernels_;
};

// Never destroyed, like the other registries: a driver thread may still call in at exit.
ArgTable& argTable() {
  static auto* table = new ArgTable;
  return *table;
}

template <class Body>
void quietly(const char* what, Body&& body) noexcept {
  try {
    body();
  } catch (...) {
    ISG_LOG_WARNING("capture: " << what << ": internal error; capture goes on without it");
  }
}


// clGetKernelArgInfo for every user argument of `kernel`, through the layer's own entry: it
// answers for a rewritten kernel from the rewriter's record of the application's declaration
// (kernels built from PTX on NVIDIA have no argument information in the driver) and asks the
// driver for the others. Nothing when neither tells.
bool queryArgInfo(cl_kernel kernel, cl_uint count, std::vector<ArgInfo>* out) {
  if (!next().clGetKernelArgInfo) return false;
  out->assign(count, ArgInfo{});
  for (cl_uint i = 0; i < count; ++i) {
    ArgInfo& a = (*out)[i];
    if (clGetKernelArgInfo_layer(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a.address, &a.address,
                                 nullptr) != CL_SUCCESS)
      return false;
    clGetKernelArgInfo_layer(kernel, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof a.access, &a.access, nullptr);
    clGetKernelArgInfo_layer(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof a.typeQualifier, &a.typeQualifier,
                             nullptr);
    auto text = [&](cl_kernel_arg_info what, std::string* into) {
      queryString([&](size_t size, void* value, size_t* size_ret) {
        return clGetKernelArgInfo_layer(kernel, i, what, size, value, size_ret);
      }, into);
    };
    text(CL_KERNEL_ARG_TYPE_NAME, &a.typeName);
    text(CL_KERNEL_ARG_NAME, &a.name);
    a.known = true;
  }
  return true;
}

// Drivers that keep argument information for programs built with -cl-kernel-arg-info only:
// the driver program is built once more with that option, on the side, to ask. It is the very
// source and options the driver ran (for rewritten programs the shadow's), so the user
// arguments are the same.
bool argInfoFromSideBuild(cl_kernel kernel, cl_device_id device, const std::string& name,
                          cl_uint count, std::vector<ArgInfo>* out) {
  const cl_icd_dispatch& d = next();
  if (!d.clCreateProgramWithSource || !d.clBuildProgram || !d.clCreateKernel ||
      !d.clReleaseKernel || !d.clReleaseProgram)
    return false;
  cl_program driverProgram = nullptr;
  cl_context context = nullptr;
  std::string source, options;
  if (kernelValue(kernel, CL_KERNEL_PROGRAM, &driverProgram) != CL_SUCCESS ||
      programValue(driverProgram, CL_PROGRAM_CONTEXT, &context) != CL_SUCCESS ||
      programString(driverProgram, CL_PROGRAM_SOURCE, &source) != CL_SUCCESS || source.empty())
    return false;
  programBuildString(driverProgram, device, CL_PROGRAM_BUILD_OPTIONS, &options);
  options += " -cl-kernel-arg-info";
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program side = d.clCreateProgramWithSource(context, 1, &text, &length, &err);
  if (!side) return false;
  bool ok = false;
  if (d.clBuildProgram(side, 1, &device, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
    if (cl_kernel k = d.clCreateKernel(side, name.c_str(), &err)) {
      ok = queryArgInfo(k, count, out);
      d.clReleaseKernel(k);
    }
  }
  d.clReleaseProgram(side);
  return ok;
}
}  // namespace

void rememberArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) noexcept {
  if (index >= kMaxArgs) return;
  quietly("clSetKernelArg", [&] {
    ArgValue v;
    v.set(size, value);
    argTable().update(kernel, [&](KernelArgs& k) {
      if (k.values.size() <= index) k.values.resize(index + 1);
      k.values[index] = std::move(v);
    });
  });
}

void rememberSvmArg(cl_kernel kernel, cl_uint index, const void* pointer) noexcept {
  if (index >= kMaxArgs) return;
  quietly("clSetKernelArgSVMPointer", [&] {
    argTable().update(kernel, [&](KernelArgs& k) {
      if (k.values.size() <= index) k.values.resize(index + 1);
      k.values[index].setSvm(pointer);
    });
  });
}

void copyArgs(cl_kernel from, cl_kernel to) noexcept {
  quietly("clCloneKernel", [&] { argTable().copy(from, to); });
}

void beforeReleaseKernel(cl_kernel kernel) noexcept {
  quietly("clReleaseKernel", [&] {
    cl_uint references = 0;
    // A handle the driver rejects, or one still referenced, keeps its arguments.
    if (kernelValue(kernel, CL_KERNEL_REFERENCE_COUNT, &references) == CL_SUCCESS &&
        references == 1)
      argTable().forget(kernel);
  });
}

KernelArgs argumentsOf(cl_kernel kernel, cl_device_id device, const std::string& kernelName, cl_uint numArgs) {
  KernelArgs args;
  argTable().snapshot(kernel, &args);
  if (!args.infoLoaded) {
    if (!queryArgInfo(kernel, numArgs, &args.info) &&
        !argInfoFromSideBuild(kernel, device, kernelName, numArgs, &args.info))
      failCapture("the driver gives no kernel argument information, even for a build with " +
                  std::string("-cl-kernel-arg-info"));
    args.infoLoaded = true;
    argTable().update(kernel, [&](KernelArgs& k) {
      k.info = args.info;
      k.infoLoaded = true;
    });
  }
  args.values.resize(std::max<size_t>(args.values.size(), numArgs));
  args.info.resize(numArgs);
  return args;
}

}  // namespace isg::capture
