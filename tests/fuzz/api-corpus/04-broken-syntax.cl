kernel void k(global float* x {
  float v = intel_sub_group_shuffle(x[get_global_id(0)], 3
  x[0] = v;
}}
#if
#define BAD(
kernel void k2(global float* x) { x[0] = intel_sub_group_shuffle_xor(x, 1u); }
