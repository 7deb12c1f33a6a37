/* Programs from SPIR-V on NVIDIA (rewriter/src/ptx/builtin_binding.cpp): the OpenCL C functions whose
 * PTX depends on NVIDIA's OpenCL driver rather than on the hardware, compiled for
 * nvptx64-nvidia-nvcl ahead of libclc (whose work-item functions know no global offset).
 *
 * The driver hands each launch its geometry in environment registers, as its own PTX for
 * OpenCL C reads them (docs/spirv.md, "NVIDIA"): %envreg0-2 the group id of the launch's first
 * group, %envreg3-5 the global id of its first work-item (global offset included), %envreg6-8
 * the number of groups and %envreg9 the work dimension.
 *
 * NVIDIA's driver has no non-uniform work-groups (OpenCL C 2.0): the layer launches such an
 * ND-range rounded up to whole work-groups, and the kernel's hidden launch parameter
 * (launch_shape.h) holds the application's global size, which __isg_launch_global reads (0 for
 * a uniform launch). The work-items past it leave at the kernel's entry (__isg_launch_outside);
 * the local size of a last, smaller work-group is what is left of the global size.
 *
 * Packed work-groups (launch_shape.h, appendPackedLaunch): a kernel whose work-groups are
 * smaller than a warp gets a packed copy that runs 32 / W of them in one CTA of 32 threads, so
 * that no warp runs half empty. In that copy (and in the copies of what it calls) the work-item
 * functions are the __isg_pk_ ones below, given the work-group's shape (lx, ly, lz: the kernel's
 * reqd_work_group_size, constants there) and reading the rest of the application's launch where
 * __isg_pack reads it: a CTA's work-groups are runs of W threads, each work-group's local ids in
 * x, y, z order, the work-groups numbered x fastest.
 */
/* Definitions of the builtins Clang declares (overloadable, as its own declarations are). */
#define __ISG_PTX_OVL __attribute__((overloadable))

#define __ISG_ENV(n)                                     \
  static inline int __isg_env##n(void) {                 \
    int r;                                               \
    __asm__("mov.b32 %0, %%envreg" #n ";" : "=r"(r));    \
    return r;                                            \
  }
__ISG_ENV(0)
__ISG_ENV(1)
__ISG_ENV(2)
__ISG_ENV(3)
__ISG_ENV(4)
__ISG_ENV(5)
__ISG_ENV(6)
__ISG_ENV(7)
__ISG_ENV(8)
__ISG_ENV(9)
#undef __ISG_ENV

/* One value per dimension; `other` for dimensions past the third, as OpenCL C defines them. */
#define __ISG_DIM(d, x, y, z, other) ((d) == 0 ? (x) : (d) == 1 ? (y) : (d) == 2 ? (z) : (other))

static inline long __isg_tid(uint d) {
  return __ISG_DIM(d, __nvvm_read_ptx_sreg_tid_x(), __nvvm_read_ptx_sreg_tid_y(),
                   __nvvm_read_ptx_sreg_tid_z(), 0);
}
static inline long __isg_ntid(uint d) {
  return __ISG_DIM(d, __nvvm_read_ptx_sreg_ntid_x(), __nvvm_read_ptx_sreg_ntid_y(),
                   __nvvm_read_ptx_sreg_ntid_z(), 1);
}
static inline long __isg_ctaid(uint d) {
  return __ISG_DIM(d, __nvvm_read_ptx_sreg_ctaid_x(), __nvvm_read_ptx_sreg_ctaid_y(),
                   __nvvm_read_ptx_sreg_ctaid_z(), 0);
}

/* Defined by launch_shape.cpp: the application's global size in dimension d of a launch the
 * layer rounded up, 0 when the launch is uniform. */
ulong __isg_launch_global(uint d);

uint __ISG_PTX_OVL get_work_dim(void) { return (uint)__isg_env9(); }
size_t __ISG_PTX_OVL get_local_id(uint d) { return (size_t)__isg_tid(d); }
size_t __ISG_PTX_OVL get_enqueued_local_size(uint d) { return (size_t)__isg_ntid(d); }
size_t __ISG_PTX_OVL get_num_groups(uint d) {
  return (size_t)__ISG_DIM(d, __isg_env6(), __isg_env7(), __isg_env8(), 1);
}
size_t __ISG_PTX_OVL get_group_id(uint d) {
  return (size_t)(__ISG_DIM(d, __isg_env0(), __isg_env1(), __isg_env2(), 0) + __isg_ctaid(d));
}
size_t __ISG_PTX_OVL get_local_size(uint d) {
  const ulong size = __isg_launch_global(d), enqueued = (ulong)__isg_ntid(d);
  if (size == 0) return (size_t)enqueued;
  const ulong left = size - get_group_id(d) * enqueued;
  return (size_t)(left < enqueued ? left : enqueued);
}
size_t __ISG_PTX_OVL get_global_size(uint d) {
  const ulong size = __isg_launch_global(d);
  return size != 0 ? (size_t)size : get_num_groups(d) * (size_t)__isg_ntid(d);
}
/* Whether this work-item lies past the application's global size (g0-g2, 0 where uniform). */
bool __isg_launch_outside(ulong g0, ulong g1, ulong g2) {
  const ulong g[3] = {g0, g1, g2};
  bool outside = false;
  for (uint d = 0; d < 3; ++d)
    outside |= g[d] != 0 && get_group_id(d) * (ulong)__isg_ntid(d) + (ulong)__isg_tid(d) >= g[d];
  return outside;
}
size_t __ISG_PTX_OVL get_global_id(uint d) {
  const long first = __ISG_DIM(d, __isg_env3(), __isg_env4(), __isg_env5(), 0);
  return (size_t)(first + __isg_ctaid(d) * __isg_ntid(d) + __isg_tid(d));
}
size_t __ISG_PTX_OVL get_global_offset(uint d) {
  const long first = __ISG_DIM(d, __isg_env3(), __isg_env4(), __isg_env5(), 0);
  const long group = __ISG_DIM(d, __isg_env0(), __isg_env1(), __isg_env2(), 0);
  return (size_t)(first - group * __isg_ntid(d));
}
size_t __ISG_PTX_OVL get_global_linear_id(void) {
  return ((get_global_id(2) - get_global_offset(2)) * get_global_size(1) +
          (get_global_id(1) - get_global_offset(1))) * get_global_size(0) +
         (get_global_id(0) - get_global_offset(0));
}
size_t __ISG_PTX_OVL get_local_linear_id(void) {
  return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0);
}

/* Defined by launch_shape.cpp: word i of a packed launch's description (__ISG_PACK_*, of
 * isg::kPackedLaunchWords in rewriter.h). */
ulong __isg_pack(uint i);
#define __ISG_PACK_GROUPS 0u      /* the launch's work-groups (below 2^31) */
#define __ISG_PACK_NUM_GROUPS 1u  /* 1, 2, 3: the work-groups in x, y, z */
#define __ISG_PACK_OFFSET 4u      /* 4, 5, 6: the global offset */
#define __ISG_PACK_DIM 7u         /* the work dimension */
#define __ISG_PK_SHAPE uint lx, uint ly, uint lz
/* The packed work-group's index in the launch. */
static inline uint __isg_pk_group(__ISG_PK_SHAPE) {
  const uint w = lx * ly * lz;
  return __nvvm_read_ptx_sreg_ctaid_x() * (32u / w) + __nvvm_read_ptx_sreg_tid_x() / w;
}
size_t __isg_pk_local_size(uint d, __ISG_PK_SHAPE) { return __ISG_DIM(d, lx, ly, lz, 1u); }
size_t __isg_pk_local_id(uint d, __ISG_PK_SHAPE) {
  const uint r = __nvvm_read_ptx_sreg_tid_x() % (lx * ly * lz);
  return __ISG_DIM(d, r % lx, r / lx % ly, r / (lx * ly), 0u);
}
size_t __isg_pk_num_groups(uint d, __ISG_PK_SHAPE) {
  return d < 3u ? (size_t)__isg_pack(__ISG_PACK_NUM_GROUPS + d) : 1;
}
size_t __isg_pk_group_id(uint d, __ISG_PK_SHAPE) {
  const uint g = __isg_pk_group(lx, ly, lz), gx = (uint)__isg_pack(__ISG_PACK_NUM_GROUPS),
             gy = (uint)__isg_pack(__ISG_PACK_NUM_GROUPS + 1u);
  return __ISG_DIM(d, g % gx, g / gx % gy, g / gx / gy, 0u);
}
size_t __isg_pk_global_offset(uint d, __ISG_PK_SHAPE) {
  return d < 3u ? (size_t)__isg_pack(__ISG_PACK_OFFSET + d) : 0;
}
size_t __isg_pk_global_size(uint d, __ISG_PK_SHAPE) {
  return __isg_pk_num_groups(d, lx, ly, lz) * __isg_pk_local_size(d, lx, ly, lz);
}
size_t __isg_pk_global_id(uint d, __ISG_PK_SHAPE) {
  return __isg_pk_global_offset(d, lx, ly, lz) +
         __isg_pk_group_id(d, lx, ly, lz) * __isg_pk_local_size(d, lx, ly, lz) + __isg_pk_local_id(d, lx, ly, lz);
}
uint __isg_pk_work_dim(__ISG_PK_SHAPE) { return (uint)__isg_pack(__ISG_PACK_DIM); }
size_t __isg_pk_local_linear_id(__ISG_PK_SHAPE) { return __nvvm_read_ptx_sreg_tid_x() % (lx * ly * lz); }
size_t __isg_pk_global_linear_id(__ISG_PK_SHAPE) {
  size_t id = 0;
  for (uint d = 3; d-- > 0;)
    id = id * __isg_pk_global_size(d, lx, ly, lz) + __isg_pk_global_id(d, lx, ly, lz) - __isg_pk_global_offset(d, lx, ly, lz);
  return id;
}
/* nvidia-ptx's context (its __isg_warp_lane): the warp lane of local id `lid` of this thread's
 * work-group, which starts at lane tid.x % 32 - tid.x % W. */
uint __isg_pk_warp_lane(uint lid, __ISG_PK_SHAPE) {
  const uint tid = __nvvm_read_ptx_sreg_tid_x();
  return tid % 32u - tid % (lx * ly * lz) + lid;
}
/* Whether this thread's packed work-group lies past the launch's last (it leaves at the entry). */
bool __isg_pk_outside(__ISG_PK_SHAPE) {
  return __isg_pk_group(lx, ly, lz) >= (uint)__isg_pack(__ISG_PACK_GROUPS);
}

/* OpenCL C 2.0's barrier and fence spellings (the SPIR-V reader writes them); libclc has only
 * the 1.2 ones. A CTA barrier orders global and local memory for the work-group. */
void __ISG_PTX_OVL work_group_barrier(cl_mem_fence_flags flags) { barrier(flags); }
void __ISG_PTX_OVL work_group_barrier(cl_mem_fence_flags flags, memory_scope scope) { barrier(flags); }
void __ISG_PTX_OVL atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order, memory_scope scope) {
  if (scope == memory_scope_work_item || scope == memory_scope_sub_group ||
      scope == memory_scope_work_group)
    __nvvm_membar_cta();
  else
    __nvvm_membar_gl();
}

/* native_* of float: the hardware's approximations, as NVIDIA's compiler uses them (libclc's
 * are LLVM intrinsics the NVPTX back end cannot write). The shims call these for scalar float;
 * vectors get the full-precision functions, which the native ones may be. */
#define __ISG_LOG2E 1.44269504088896340736f
#define __ISG_LOG2_10 3.32192809488736234787f
#define __ISG_LN2 0.693147180559945309417f
#define __ISG_LOG10_2 0.301029995663981195214f
float __isg_native_sin(float x) { return __nvvm_sin_approx_f(x); }
float __isg_native_cos(float x) { return __nvvm_cos_approx_f(x); }
float __isg_native_tan(float x) { return __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x)); }
float __isg_native_exp2(float x) { return __nvvm_ex2_approx_f(x); }
float __isg_native_exp(float x) { return __nvvm_ex2_approx_f(x * __ISG_LOG2E); }
float __isg_native_exp10(float x) { return __nvvm_ex2_approx_f(x * __ISG_LOG2_10); }
float __isg_native_log2(float x) { return __nvvm_lg2_approx_f(x); }
float __isg_native_log(float x) { return __nvvm_lg2_approx_f(x) * __ISG_LN2; }
float __isg_native_log10(float x) { return __nvvm_lg2_approx_f(x) * __ISG_LOG10_2; }
float __isg_native_powr(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
float __isg_native_sqrt(float x) { return __nvvm_sqrt_approx_f(x); }
float __isg_native_rsqrt(float x) { return __nvvm_rsqrt_approx_f(x); }
float __isg_native_recip(float x) { return __nvvm_div_approx_f(1.0f, x); }
float __isg_native_divide(float x, float y) { return __nvvm_div_approx_f(x, y); }
