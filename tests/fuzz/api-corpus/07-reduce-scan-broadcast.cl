Pkernel void k(global int* i, global long* l, global double* d) {
  size_t g = get_global_id(0);
  i[g] = sub_group_reduce_min(i[g]) + sub_group_scan_exclusive_add(i[g]);
  l[g] = sub_group_scan_inclusive_max(l[g]) + sub_group_broadcast(l[g], 0u);
#ifdef cl_khr_fp64
  d[g] = sub_group_reduce_add(d[g]);
#endif
}
