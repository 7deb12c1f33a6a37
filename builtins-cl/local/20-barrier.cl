/* SPDX-License-Identifier: MIT */
/*
 * sub_group_barrier becomes a work-group barrier: the only barrier OpenCL 1.2 has. It is
 * stronger than asked (it also waits for the other sub-groups), which is correct as long as the
 * whole work-group reaches it, the same rule every local-strategy builtin already imposes.
 */
#ifdef ISG_NEED_barrier

#if __OPENCL_C_VERSION__ >= 200
#define __ISG_DEF_sub_group_barrier                                                                \
  __ISG_OVL void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags) {             \
    (void)ctx;                                                                                     \
    barrier(flags);                                                                                \
  }                                                                                                \
  __ISG_OVL void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags,               \
                                         memory_scope scope) {                                     \
    (void)ctx;                                                                                     \
    (void)scope;                                                                                   \
    barrier(flags);                                                                                \
  }
#else
#define __ISG_DEF_sub_group_barrier                                                                \
  __ISG_OVL void __isg_sub_group_barrier(__isg_ctx_t* ctx, cl_mem_fence_flags flags) {             \
    (void)ctx;                                                                                     \
    barrier(flags);                                                                                \
  }
#endif

#define __ISG_ROW_barrier(name, shape, typeset) __ISG_DEF_##name

#else
#define __ISG_ROW_barrier(name, shape, typeset)
#endif
