typedef float4 vec_t;
vec_t rot(vec_t cur, vec_t next, uint d) {
  return intel_sub_group_shuffle_down(cur, next, d) + intel_sub_group_shuffle_up(cur, next, d);
}
kernel void k(global float4* p, global float16* q) {
  size_t g = get_global_id(0);
  p[g] = rot(p[g], p[g + 1], 1u);
  q[g] = intel_sub_group_shuffle(q[g], (uint)g & 7u);
  uint8 r = intel_sub_group_block_read8((const global uint*)q);
  intel_sub_group_block_write8((global uint*)q, r);
}
