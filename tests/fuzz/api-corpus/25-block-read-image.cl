kernel void img(read_only image2d_t in, write_only image2d_t out) {
  int2 at = (int2)(get_group_id(0) * 16 * 4, get_global_id(1));
  uint4 v = intel_sub_group_block_read4(in, at);
  intel_sub_group_block_write4(out, at, v);
  ushort8 s = intel_sub_group_block_read_us8(in, at);
  intel_sub_group_block_write_us8(out, at, s);
}
