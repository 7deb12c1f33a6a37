/* SPDX-License-Identifier: MIT */
/*
 * sub_group_barrier: the native sub-group barrier. With S < N it also waits for the other Intel
 * sub-groups of the native one, which is stronger than asked and correct as long as they all
 * reach it (the rule every khr builtin shares, see 05-context.cl).
 */
#ifdef ISG_NEED_barrier

#if __OPENCL_C_VERSION__ >= 200
#define __ISG_DEF_sub_group_barrier                                                                \
  __ISG_KHR_FN void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags) {          \
    __isg_k_barrier(ctx, flags);                                                                   \
  }                                                                                                \
  __ISG_KHR_FN void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags,            \
                                         memory_scope scope) {                                     \
    __isg_k_barrier_scope(ctx, flags, scope);                                                      \
  }
#else
#define __ISG_DEF_sub_group_barrier                                                                \
  __ISG_KHR_FN void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags) {          \
    __isg_k_barrier(ctx, flags);                                                                   \
  }
#endif

#define __ISG_ROW_barrier(name, shape, typeset) __ISG_DEF_##name

#else
#define __ISG_ROW_barrier(name, shape, typeset)
#endif
