uint lane(void) {
  uint r;
  __asm__ volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r + get_sub_group_local_id();
}
__attribute__((always_inline)) uint wrap(uint v) { return intel_sub_group_shuffle(v, lane() ^ 1); }
kernel void k(global uint* o) { o[get_global_id(0)] = wrap(o[get_global_id(0)]); }
