// SPDX-License-Identifier: MIT
// The OpenCL convention for answering a query: size_ret always, the value only when there is
// room, CL_INVALID_VALUE when param_value is given but too small.
#pragma once

#include <CL/cl.h>

#include <cstring>
#include <string>
#include <vector>

namespace isg {

inline cl_int writeParam(size_t param_value_size, void* param_value, size_t* param_value_size_ret,
                         const void* data, size_t size) {
  if (param_value) {
    if (param_value_size < size) return CL_INVALID_VALUE;
    if (size) std::memcpy(param_value, data, size);
  }
  if (param_value_size_ret) *param_value_size_ret = size;
  return CL_SUCCESS;
}

template <class T>
cl_int writeValue(size_t param_value_size, void* param_value, size_t* param_value_size_ret,
                  const T& value) {
  return writeParam(param_value_size, param_value, param_value_size_ret, &value, sizeof(T));
}

template <class T>
cl_int writeArray(size_t param_value_size, void* param_value, size_t* param_value_size_ret,
                  const std::vector<T>& values) {
  return writeParam(param_value_size, param_value, param_value_size_ret, values.data(),
                    values.size() * sizeof(T));
}

inline cl_int writeString(size_t param_value_size, void* param_value, size_t* param_value_size_ret,
                          const std::string& text) {
  return writeParam(param_value_size, param_value, param_value_size_ret, text.c_str(),
                    text.size() + 1);
}

}  // namespace isg
