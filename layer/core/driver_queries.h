// SPDX-License-Identifier: MIT
// Reads of driver object state through the next layer's table (never through the application's
// entry points, which would re-enter the layer).
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

#include "core/layer_api.h"

namespace isg {

// Runs a two-step OpenCL query (size, then data) into a vector of T.
template <class T, class Query>
cl_int queryArray(Query&& query, std::vector<T>* out) {
  size_t bytes = 0;
  cl_int err = query(0, nullptr, &bytes);
  if (err != CL_SUCCESS) return err;
  out->assign((bytes + sizeof(T) - 1) / sizeof(T), T{});
  if (bytes == 0) return CL_SUCCESS;
  return query(bytes, out->data(), nullptr);
}

template <class Query>
cl_int queryString(Query&& query, std::string* out) {
  std::vector<char> chars;
  cl_int err = queryArray(query, &chars);
  if (err != CL_SUCCESS) return err;
  out->assign(chars.data(), chars.size());
  while (!out->empty() && out->back() == '\0') out->pop_back();
  return CL_SUCCESS;
}

#define ISG_QUERY_LAMBDA(entry, ...)                                   \
  [&](size_t size_, void* value_, size_t* size_ret_) -> cl_int {       \
    if (!::isg::next().entry) return CL_INVALID_OPERATION;             \
    return ::isg::next().entry(__VA_ARGS__, size_, value_, size_ret_); \
  }

inline cl_int deviceString(cl_device_id device, cl_device_info param, std::string* out) {
  return queryString(ISG_QUERY_LAMBDA(clGetDeviceInfo, device, param), out);
}
template <class T>
cl_int deviceValue(cl_device_id device, cl_device_info param, T* out) {
  if (!next().clGetDeviceInfo) return CL_INVALID_OPERATION;
  return next().clGetDeviceInfo(device, param, sizeof(T), out, nullptr);
}
template <class T>
cl_int deviceArray(cl_device_id device, cl_device_info param, std::vector<T>* out) {
  return queryArray(ISG_QUERY_LAMBDA(clGetDeviceInfo, device, param), out);
}

inline cl_int programString(cl_program program, cl_program_info param, std::string* out) {
  return queryString(ISG_QUERY_LAMBDA(clGetProgramInfo, program, param), out);
}
template <class T>
cl_int programValue(cl_program program, cl_program_info param, T* out) {
  if (!next().clGetProgramInfo) return CL_INVALID_OPERATION;
  return next().clGetProgramInfo(program, param, sizeof(T), out, nullptr);
}
inline cl_int programDevices(cl_program program, std::vector<cl_device_id>* out) {
  return queryArray(ISG_QUERY_LAMBDA(clGetProgramInfo, program, CL_PROGRAM_DEVICES), out);
}
inline cl_int programBuildString(cl_program program, cl_device_id device,
                                 cl_program_build_info param, std::string* out) {
  return queryString(ISG_QUERY_LAMBDA(clGetProgramBuildInfo, program, device, param), out);
}

template <class T>
cl_int kernelValue(cl_kernel kernel, cl_kernel_info param, T* out) {
  if (!next().clGetKernelInfo) return CL_INVALID_OPERATION;
  return next().clGetKernelInfo(kernel, param, sizeof(T), out, nullptr);
}
inline cl_int kernelString(cl_kernel kernel, cl_kernel_info param, std::string* out) {
  return queryString(ISG_QUERY_LAMBDA(clGetKernelInfo, kernel, param), out);
}
template <class T>
cl_int kernelWorkGroupValue(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param,
                            T* out) {
  if (!next().clGetKernelWorkGroupInfo) return CL_INVALID_OPERATION;
  return next().clGetKernelWorkGroupInfo(kernel, device, param, sizeof(T), out, nullptr);
}
template <class T>
cl_int memValue(cl_mem mem, cl_mem_info param, T* out) {
  if (!next().clGetMemObjectInfo) return CL_INVALID_OPERATION;
  return next().clGetMemObjectInfo(mem, param, sizeof(T), out, nullptr);
}
template <class T>
cl_int imageValue(cl_mem image, cl_image_info param, T* out) {
  if (!next().clGetImageInfo) return CL_INVALID_OPERATION;
  return next().clGetImageInfo(image, param, sizeof(T), out, nullptr);
}
inline cl_int queueDevice(cl_command_queue queue, cl_device_id* device) {
  if (!next().clGetCommandQueueInfo) return CL_INVALID_OPERATION;
  return next().clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof *device, device, nullptr);
}
inline cl_int contextDevices(cl_context context, std::vector<cl_device_id>* out) {
  return queryArray(ISG_QUERY_LAMBDA(clGetContextInfo, context, CL_CONTEXT_DEVICES), out);
}

}  // namespace isg
