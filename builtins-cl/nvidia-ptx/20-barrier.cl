/* SPDX-License-Identifier: MIT */
/*
 * sub_group_barrier: a sub-group is one segment of a warp, so bar.warp.sync over the lanes that
 * reach it is the whole barrier; it also orders the participants' memory accesses, which is
 * the fence the flags ask for (local and global alike).
 */
#ifdef ISG_NEED_barrier

static inline void __isg_warp_barrier(__isg_ctx_t* ctx) {
  __asm__ volatile("bar.warp.sync %0;" : : "r"(__isg_member_mask(ctx)) : "memory");
}

#if __OPENCL_C_VERSION__ >= 200
#define __ISG_DEF_sub_group_barrier                                                                \
  __ISG_OVL void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags) {             \
    (void)flags;                                                                                   \
    __isg_warp_barrier(ctx);                                                                       \
  }                                                                                                \
  __ISG_OVL void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags,               \
                                         memory_scope scope) {                                     \
    /* Drivers differ in which memory_scope names they declare (NVIDIA has no                      \
     * memory_scope_sub_group), so no scope is named here: the warp barrier orders the sub-group,  \
     * and a fence makes the accesses visible at any wider scope the caller asked for. */          \
    (void)scope;                                                                                   \
    __isg_warp_barrier(ctx);                                                                       \
    mem_fence(flags);                                                                              \
  }
#else
#define __ISG_DEF_sub_group_barrier                                                                \
  __ISG_OVL void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags) {             \
    (void)flags;                                                                                   \
    __isg_warp_barrier(ctx);                                                                       \
  }
#endif

#define __ISG_ROW_barrier(name, shape, typeset) __ISG_DEF_##name

#else
#define __ISG_ROW_barrier(name, shape, typeset)
#endif
