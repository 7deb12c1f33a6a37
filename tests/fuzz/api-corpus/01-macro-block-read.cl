*#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define BLOCK_READ(ptr) as_float(intel_sub_group_block_read((const __global uint*)(ptr)))
#define BLOCK_WRITE(ptr, v) intel_sub_group_block_write((__global uint*)(ptr), as_uint(v))
__attribute__((intel_reqd_sub_group_size(SIMD)))
kernel void CAT(copy_, TYPE)(const __global TYPE* in, __global TYPE* out) {
  const uint base = get_group_id(0) * get_local_size(0);
  TYPE v = BLOCK_READ(in + base);
  BLOCK_WRITE(out + base, v * 2.0f);
}
