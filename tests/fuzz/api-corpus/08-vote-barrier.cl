kernel void k(global int* flags, local int* tmp) {
  int f = flags[get_global_id(0)];
  tmp[get_local_id(0)] = f;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  int a = sub_group_all(f), b = sub_group_any(tmp[get_sub_group_local_id()]);
  barrier(CLK_GLOBAL_MEM_FENCE);
  flags[get_global_id(0)] = a * 2 + b + get_max_sub_group_size() + get_enqueued_num_sub_groups();
}
