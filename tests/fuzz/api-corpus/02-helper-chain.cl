float lane_sum(float v) { return sub_group_reduce_add(v); }
float twice(float v) { return 2.0f * lane_sum(v); }
static inline float plain(float v) { return v + 1.0f; }
float nothing(void);
float nothing(void) { return twice(get_sub_group_local_id()); }
kernel void k(global float* out) {
  out[get_global_id(0)] = twice(plain(out[get_global_id(0)])) + nothing();
}
