#define REQD_SUB_GROUP_SIZE(sz) __attribute__((intel_reqd_sub_group_size(sz)))
#define SUB_GROUP_SIZE 8
REQD_SUB_GROUP_SIZE(SUB_GROUP_SIZE)
__attribute__((reqd_work_group_size(16, 2, 1)))
kernel void k(global int* out) {
  out[get_global_id(0) + get_global_id(1) * 16] = get_sub_group_id() * 100 + get_num_sub_groups();
}
kernel void no_sg(global int* out) { out[0] = 1; }
