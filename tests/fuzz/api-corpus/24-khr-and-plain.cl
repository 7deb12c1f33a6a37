#pragma OPENCL EXTENSION cl_khr_subgroups : enable
kernel void khr(global uint* p) {
  uint v = p[get_global_id(0)];
  p[get_global_id(0)] = sub_group_broadcast(v, 0u) + sub_group_scan_exclusive_add(v) +
                        get_sub_group_local_id();
}
kernel void untouched(global float* p, float a) { p[get_global_id(0)] *= a; }
