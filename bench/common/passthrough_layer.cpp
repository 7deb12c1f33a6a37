// SPDX-License-Identifier: MIT
// The least a layer can be: it intercepts clSetKernelArg and clEnqueueNDRangeKernel and only
// forwards them. bench_host runs it as the variant "passthrough": what the loader's layer
// mechanism alone adds to a call (the first layer's entry, then the loader's own dispatch
// into the driver), against which the layer's own work per call is measured. Every other
// entry is left NULL, which the loader fills with the next one's.
#include <CL/cl_icd.h>
#include <CL/cl_layer.h>

#include <cstring>

namespace {

const cl_icd_dispatch* g_next = nullptr;
cl_icd_dispatch g_dispatch;

cl_int CL_API_CALL setKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) {
  return g_next->clSetKernelArg(kernel, index, size, value);
}

cl_int CL_API_CALL enqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                        const size_t* offset, const size_t* global,
                                        const size_t* local, cl_uint waits,
                                        const cl_event* waitList, cl_event* event) {
  return g_next->clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, waits,
                                        waitList, event);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(
    cl_layer_info param_name, size_t param_value_size, void* param_value,
    size_t* param_value_size_ret) {
  if (param_name != CL_LAYER_API_VERSION) return CL_INVALID_VALUE;
  const cl_layer_api_version version = CL_LAYER_API_VERSION_100;
  if (param_value_size_ret) *param_value_size_ret = sizeof version;
  if (param_value) {
    if (param_value_size < sizeof version) return CL_INVALID_VALUE;
    std::memcpy(param_value, &version, sizeof version);
  }
  return CL_SUCCESS;
}

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clInitLayer(
    cl_uint num_entries, const cl_icd_dispatch* target_dispatch, cl_uint* num_entries_ret,
    const cl_icd_dispatch** layer_dispatch_ret) {
  if (!target_dispatch || !num_entries_ret || !layer_dispatch_ret ||
      num_entries < sizeof(cl_icd_dispatch) / sizeof(void*))
    return CL_INVALID_VALUE;
  g_next = target_dispatch;
  std::memset(&g_dispatch, 0, sizeof g_dispatch);
  g_dispatch.clSetKernelArg = &setKernelArg;
  g_dispatch.clEnqueueNDRangeKernel = &enqueueNDRangeKernel;
  *num_entries_ret = sizeof(cl_icd_dispatch) / sizeof(void*);
  *layer_dispatch_ret = &g_dispatch;
  return CL_SUCCESS;
}

}  // extern "C"
