#pragma OPENCL EXTENSION cl_intel_subgroups_short : enable
#pragma OPENCL EXTENSION cl_intel_subgroups_char : enable
#pragma OPENCL EXTENSION cl_intel_subgroups_long : enable
kernel void narrow(global ushort* s, global uchar* c, global ulong* l) {
  uint base = get_group_id(0) * get_local_size(0);
  ushort2 a = intel_sub_group_block_read_us2(s + base * 2);
  intel_sub_group_block_write_us2(s + base * 2, a + (ushort2)1);
  uchar4 b = intel_sub_group_block_read_uc4(c + base * 4);
  intel_sub_group_block_write_uc4(c + base * 4, b);
  ulong x = intel_sub_group_block_read_ul(l + base);
  l[get_global_id(0)] = intel_sub_group_shuffle(x, 0u) + intel_sub_group_shuffle((long)x, 1u);
  c[get_global_id(0)] = intel_sub_group_shuffle_down(c[get_global_id(0)], (uchar)1, 1u);
}
