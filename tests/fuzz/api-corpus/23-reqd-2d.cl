ƒ__attribute__((intel_reqd_sub_group_size(8))) __attribute__((reqd_work_group_size(8, 4, 1)))
kernel void tile(global float* out, int width) {
  int x = get_global_id(0), y = get_global_id(1);
  float v = intel_sub_group_shuffle_up(0.0f, (float)x, 1u);
  out[y * width + x] = v + get_sub_group_id() + get_num_sub_groups() * 10;
}
__attribute__((intel_reqd_sub_group_size(32)))
kernel void wide(global int* out) { out[get_global_id(0)] = sub_group_reduce_max((int)get_global_id(0)); }
