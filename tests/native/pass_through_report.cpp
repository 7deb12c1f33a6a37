// SPDX-License-Identifier: MIT
// What an application sees of a native Intel device and of an Intel program on it, printed in a
// fixed order: device queries, program and build queries, kernel and argument queries, the
// sub-group queries for several local sizes, the program binary (hashed) and a kernel's output.
// tests/native runs it with and without the layer: on a device with cl_intel_subgroups the
// layer must pass everything through, so the two reports must be identical.
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string hex(const void* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

uint64_t fnv(const std::vector<unsigned char>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Prints a query's status and raw bytes (size first): any change the layer made shows.
template <class Query>
void report(const char* what, Query&& query) {
  size_t size = 0;
  cl_int err = query(0, nullptr, &size);
  std::vector<unsigned char> bytes(size);
  if (err == CL_SUCCESS && size) err = query(size, bytes.data(), nullptr);
  std::printf("%s: %d %zu %s\n", what, err, size, err == CL_SUCCESS ? hex(bytes.data(), size).c_str() : "");
}

}  // namespace

int main() {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
    std::printf("no device\n");
    return 1;
  }
  const cl_device_info deviceParams[] = {
      CL_DEVICE_NAME, CL_DEVICE_VERSION, CL_DEVICE_OPENCL_C_VERSION, CL_DEVICE_EXTENSIONS,
      CL_DEVICE_IL_VERSION, CL_DEVICE_SUB_GROUP_SIZES_INTEL, CL_DEVICE_MAX_NUM_SUB_GROUPS,
      CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, CL_DEVICE_MAX_WORK_GROUP_SIZE,
      CL_DEVICE_MAX_WORK_ITEM_SIZES, CL_DEVICE_LOCAL_MEM_SIZE, CL_DEVICE_IMAGE_SUPPORT};
  for (cl_device_info p : deviceParams) {
    const std::string what = "device " + std::to_string(p);
    report(what.c_str(), [&](size_t n, void* v, size_t* r) { return clGetDeviceInfo(device, p, n, v, r); });
  }
  // Name-version lists: the names' bytes after their NUL are whatever the driver left there.
  for (cl_device_info p : {CL_DEVICE_EXTENSIONS_WITH_VERSION, CL_DEVICE_OPENCL_C_FEATURES,
                           CL_DEVICE_ILS_WITH_VERSION, CL_DEVICE_OPENCL_C_ALL_VERSIONS}) {
    size_t size = 0;
    cl_int e = clGetDeviceInfo(device, p, 0, nullptr, &size);
    std::vector<cl_name_version> list(size / sizeof(cl_name_version));
    if (e == CL_SUCCESS && size) e = clGetDeviceInfo(device, p, size, list.data(), nullptr);
    std::printf("device %u: %d", p, e);
    for (const cl_name_version& nv : list)
      std::printf(" %.*s@%x", int(strnlen(nv.name, CL_NAME_VERSION_MAX_NAME_SIZE)), nv.name,
                  nv.version);
    std::printf("\n");
  }

  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &err);
  const char* source =
      "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void rotate(global const uint* in, global uint* out, local uint* scratch) {\n"
      "  uint i = get_global_id(0);\n"
      "  scratch[get_local_id(0)] = in[i];\n"
      "  out[i] = intel_sub_group_shuffle(in[i], (get_sub_group_local_id() + 1) % 16) +\n"
      "           sub_group_reduce_add(in[i]) + intel_sub_group_block_read(in) + scratch[0];\n"
      "}\n"
      "kernel void plain(global uint* out) { out[get_global_id(0)] = 7; }\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
  err = clBuildProgram(program, 1, &device, "-cl-std=CL2.0 -cl-kernel-arg-info", nullptr, nullptr);
  std::printf("build: %d\n", err);
  const cl_program_info programParams[] = {CL_PROGRAM_SOURCE, CL_PROGRAM_NUM_DEVICES,
                                           CL_PROGRAM_BINARY_SIZES, CL_PROGRAM_NUM_KERNELS,
                                           CL_PROGRAM_KERNEL_NAMES, CL_PROGRAM_IL};
  for (cl_program_info p : programParams) {
    const std::string what = "program " + std::to_string(p);
    report(what.c_str(), [&](size_t n, void* v, size_t* r) { return clGetProgramInfo(program, p, n, v, r); });
  }
  const cl_program_build_info buildParams[] = {CL_PROGRAM_BUILD_STATUS, CL_PROGRAM_BUILD_OPTIONS,
                                               CL_PROGRAM_BUILD_LOG, CL_PROGRAM_BINARY_TYPE};
  for (cl_program_build_info p : buildParams) {
    const std::string what = "build " + std::to_string(p);
    report(what.c_str(), [&](size_t n, void* v, size_t* r) {
      return clGetProgramBuildInfo(program, device, p, n, v, r);
    });
  }
  size_t binarySize = 0;
  clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof binarySize, &binarySize, nullptr);
  std::vector<unsigned char> binary(binarySize);
  unsigned char* binaryPtr = binary.data();
  clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaryPtr, &binaryPtr, nullptr);
  std::printf("binary: %zu bytes, fnv %016llx\n", binary.size(),
              static_cast<unsigned long long>(fnv(binary)));

  cl_kernel kernel = clCreateKernel(program, "rotate", &err);
  std::printf("kernel: %d\n", err);
  const cl_kernel_info kernelParams[] = {CL_KERNEL_FUNCTION_NAME, CL_KERNEL_NUM_ARGS,
                                         CL_KERNEL_ATTRIBUTES};
  for (cl_kernel_info p : kernelParams) {
    const std::string what = "kernel " + std::to_string(p);
    report(what.c_str(), [&](size_t n, void* v, size_t* r) { return clGetKernelInfo(kernel, p, n, v, r); });
  }
  for (cl_uint arg = 0; arg < 4; ++arg)  // argument 3 does not exist
    for (cl_kernel_arg_info p : {CL_KERNEL_ARG_NAME, CL_KERNEL_ARG_TYPE_NAME,
                                 CL_KERNEL_ARG_ADDRESS_QUALIFIER}) {
      const std::string what = "arg " + std::to_string(arg) + " " + std::to_string(p);
      report(what.c_str(), [&](size_t n, void* v, size_t* r) {
        return clGetKernelArgInfo(kernel, arg, p, n, v, r);
      });
    }
  for (cl_kernel_work_group_info p : {CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_LOCAL_MEM_SIZE,
                                      CL_KERNEL_PRIVATE_MEM_SIZE,
                                      CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE}) {
    const std::string what = "work-group " + std::to_string(p);
    report(what.c_str(), [&](size_t n, void* v, size_t* r) {
      return clGetKernelWorkGroupInfo(kernel, device, p, n, v, r);
    });
  }
  for (size_t local : {16, 40, 64, 128}) {
    for (cl_kernel_sub_group_info p :
         {CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
          CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, CL_KERNEL_MAX_NUM_SUB_GROUPS,
          CL_KERNEL_COMPILE_NUM_SUB_GROUPS}) {
      const std::string what = "sub-group " + std::to_string(local) + " " + std::to_string(p);
      report(what.c_str(), [&](size_t n, void* v, size_t* r) {
        return clGetKernelSubGroupInfo(kernel, device, p, sizeof local, &local, n, v, r);
      });
    }
  }
  size_t count = 2;  // the local size giving 2 sub-groups
  report("local size for 2 sub-groups", [&](size_t n, void* v, size_t* r) {
    return clGetKernelSubGroupInfo(kernel, device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                   sizeof count, &count, n, v, r);
  });

  std::vector<cl_uint> in(64), out(64, 0);
  for (cl_uint i = 0; i < 64; ++i) in[i] = i * 37 + 1;
  cl_mem bin = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 64 * 4, in.data(), &err);
  cl_mem bout = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 64 * 4, nullptr, &err);
  clSetKernelArg(kernel, 0, sizeof bin, &bin);
  clSetKernelArg(kernel, 1, sizeof bout, &bout);
  clSetKernelArg(kernel, 2, 64 * 4, nullptr);
  std::printf("set hidden index 3: %d\n", clSetKernelArg(kernel, 3, 4, &count));
  size_t global = 64, local = 32;
  std::printf("enqueue: %d\n", clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local,
                                                      0, nullptr, nullptr));
  clEnqueueReadBuffer(queue, bout, CL_TRUE, 0, 64 * 4, out.data(), 0, nullptr, nullptr);
  std::printf("output: %s\n", hex(out.data(), out.size() * 4).c_str());

  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
