/#pragma OPENCL EXTENSION cl_intel_subgroups : enable
  #  pragma   OPENCL EXTENSION cl_intel_required_subgroup_size:enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#if defined(cl_intel_subgroups) && defined(INPUT0_TYPE)
kernel void k(global INPUT0_TYPE* in, global OUTPUT_TYPE* out) {
  out[get_global_id(0)] = (OUTPUT_TYPE)intel_sub_group_shuffle(in[get_global_id(0)], 0u) * FILTER_SIZE_X;
}
#else
#error no sub-groups
#endif
