/* SPDX-License-Identifier: MIT */
/*
 * The khr test double: a reference implementation of the cl_khr_subgroup_* builtins the khr
 * library calls, for a device that has none of them (PoCL in CI). It is prepended only when the
 * layer runs with ISG_STRATEGY=khr and ISG_KHR_TEST_NATIVE_SIZE=N, so that the khr library itself
 * (builtins-cl/khr/, unchanged) runs the whole oracle suite as it would on a driver whose native
 * sub-groups are N wide.
 *
 * Native sub-groups here are runs of N consecutive linear local ids, the last one partial, which
 * is how the drivers the khr strategy targets form them. Values move through the same hidden
 * __local scratch the local strategy uses (one work-group barrier per exchange, alternating
 * halves), so the test double inherits local's rule that builtins are reached in work-group
 * uniform control flow; the oracle suite satisfies it.
 *
 * Each builtin is __isg_ref_<khr name>(n, ...), n the native state: a macro that publishes the
 * value (__isg_ref_put), passes the barrier and reads (__isg_ref_take, __isg_ref_fold_<op>). Only
 * the barrier sits in the caller; the reading and writing are ordinary calls, which keeps the
 * kernels PoCL splits at every barrier small (its compile time grows with the variables that live
 * in the kernel times the barriers). The value argument is evaluated twice (it only names its
 * type the second time); the khr library passes plain variables. A read from a work-item that
 * does not exist (an index past the native sub-group, undefined in the khr specs) returns the
 * reader's own value, never memory outside the scratch.
 *
 * The rewriter defines __ISG_KHR_REFERENCE_SIZE (N) and, unless the double is to look minimal
 * (ISG_KHR_TEST_MINIMAL), __ISG_KHR_REFERENCE_OPTIONAL: then the double also offers
 * cl_khr_subgroup_clustered_reduce and cl_khr_subgroup_extended_types.
 */

/* The khr library's hooks for its native builtins (builtins-cl/khr/05-context.cl). */
#define __ISG_KHR_NATIVE_OVERLAY 1
#define __ISG_KHR_NATIVE_SIZE __ISG_KHR_REFERENCE_SIZE
#ifdef __ISG_KHR_REFERENCE_OPTIONAL
#define __ISG_KHR_CLUSTERED 1
#define __ISG_KHR_EXTENDED 1
#endif
#define __ISG_KHR_NATIVE_FIELD __isg_native_t native;
#define __ISG_KHR_NATIVE_PARAMS , __local ulong16* __isg_n_scratch, uint __isg_n_slot
#define __ISG_KHR_NATIVE_ARGS(SLOT) , __isg_scratch, (SLOT)
#define __ISG_KHR_NATIVE_INIT(c, S) (c).native = __isg_native_init(__isg_n_scratch, (S), __isg_n_slot);
/* The work-group collectives share the scratch with the native exchanges: the half the next one
 * writes, and the other (common/90-work-group.cl). */
#define __ISG_KHR_WG_REGION(ctx, which)                                                            \
  ((ctx)->native.scratch + ((ctx)->native.toggle ^ (which)) * (ctx)->native.area)
#define __isg_k_local_id(ctx) __isg_ref_get_sub_group_local_id(&(ctx)->native)
#define __isg_k_max_size(ctx) __isg_ref_get_max_sub_group_size(&(ctx)->native)
#define __isg_k_shuffle(ctx, x, i) __isg_ref_sub_group_shuffle(&(ctx)->native, x, i)
#define __isg_k_shuffle_xor(ctx, x, m) __isg_ref_sub_group_shuffle_xor(&(ctx)->native, x, m)
#define __isg_k_shuffle_up(ctx, x, d) __isg_ref_sub_group_shuffle_up(&(ctx)->native, x, d)
#define __isg_k_shuffle_down(ctx, x, d) __isg_ref_sub_group_shuffle_down(&(ctx)->native, x, d)
#define __isg_k_all(ctx, p) __isg_ref_sub_group_all(&(ctx)->native, p)
#define __isg_k_any(ctx, p) __isg_ref_sub_group_any(&(ctx)->native, p)
#define __isg_k_reduce_add(ctx, x) __isg_ref_sub_group_reduce_add(&(ctx)->native, x)
#define __isg_k_reduce_min(ctx, x) __isg_ref_sub_group_reduce_min(&(ctx)->native, x)
#define __isg_k_reduce_max(ctx, x) __isg_ref_sub_group_reduce_max(&(ctx)->native, x)
#define __isg_k_scan_inclusive_add(ctx, x) __isg_ref_sub_group_scan_inclusive_add(&(ctx)->native, x)
#define __isg_k_scan_inclusive_min(ctx, x) __isg_ref_sub_group_scan_inclusive_min(&(ctx)->native, x)
#define __isg_k_scan_inclusive_max(ctx, x) __isg_ref_sub_group_scan_inclusive_max(&(ctx)->native, x)
#define __isg_k_scan_exclusive_add(ctx, x) __isg_ref_sub_group_scan_exclusive_add(&(ctx)->native, x)
#define __isg_k_scan_exclusive_min(ctx, x) __isg_ref_sub_group_scan_exclusive_min(&(ctx)->native, x)
#define __isg_k_scan_exclusive_max(ctx, x) __isg_ref_sub_group_scan_exclusive_max(&(ctx)->native, x)
#define __isg_k_clustered_reduce_add(ctx, x, cs)                                                   \
  __isg_ref_sub_group_clustered_reduce_add(&(ctx)->native, x, cs)
#define __isg_k_clustered_reduce_min(ctx, x, cs)                                                   \
  __isg_ref_sub_group_clustered_reduce_min(&(ctx)->native, x, cs)
#define __isg_k_clustered_reduce_max(ctx, x, cs)                                                   \
  __isg_ref_sub_group_clustered_reduce_max(&(ctx)->native, x, cs)
#define __isg_k_barrier(ctx, flags) __isg_ref_sub_group_barrier(&(ctx)->native, flags)
#define __isg_k_barrier_scope(ctx, flags, scope)                                                   \
  __isg_ref_sub_group_barrier_scope(&(ctx)->native, flags, scope)

typedef struct {
  __local uchar* scratch;
  uint lid;    /* linear local id */
  uint nlid;   /* native sub-group local id */
  uint nsgid;  /* native sub-group id */
  uint nbase;  /* linear local id of native lane 0 */
  uint nsize;  /* native sub-group size (< N only for a partial last one) */
  uint nmax;   /* N */
  uint nnum;   /* native sub-groups in the work-group */
  uint area;   /* bytes of one half of the scratch, as the layer sizes it */
  uint toggle;
} __isg_native_t;

/* The layer sizes the scratch as 2 x roundup(local size, S) x SLOT bytes (SLOT >= 8 in this mode,
 * the widest scalar), so each half holds one scalar of any type per work-item. */
static inline __isg_native_t __isg_native_init(__local ulong16* scratch, uint S, uint slot) {
  __isg_native_t n;
  uint lx = (uint)get_local_size(0), ly = (uint)get_local_size(1);
  uint lsize = lx * ly * (uint)get_local_size(2);
  n.scratch = (__local uchar*)scratch;
  n.lid = (uint)get_local_id(0) + lx * ((uint)get_local_id(1) + ly * (uint)get_local_id(2));
  n.nmax = __ISG_KHR_REFERENCE_SIZE;
  n.nsgid = n.lid / n.nmax;
  n.nlid = n.lid % n.nmax;
  n.nbase = n.lid - n.nlid;
  n.nsize = min(n.nmax, lsize - n.nbase);
  n.nnum = (lsize + n.nmax - 1u) / n.nmax;
  n.area = (lsize + S - 1u) / S * S * slot;
  n.toggle = 0;
  return n;
}

static inline __local uchar* __isg_ref_area(__isg_native_t* n) {
  return n->scratch + n->toggle * n->area;
}
/* Native lane `src` of the reader's native sub-group, or the reader itself past its end. */
static inline uint __isg_ref_slot(__isg_native_t* n, uint src) {
  return src < n->nsize ? n->nbase + src : n->lid;
}
static inline uint __isg_ref_up(__isg_native_t* n, uint d) {
  return d <= n->nlid ? n->nlid - d : n->nsize;
}

/* Queries. */
#define __isg_ref_get_sub_group_local_id(n) ((n)->nlid)
#define __isg_ref_get_sub_group_id(n) ((n)->nsgid)
#define __isg_ref_get_sub_group_size(n) ((n)->nsize)
#define __isg_ref_get_max_sub_group_size(n) ((n)->nmax)
#define __isg_ref_get_num_sub_groups(n) ((n)->nnum)

/* A native sub-group barrier: the work-group barrier is the only one OpenCL 1.2 has. */
#define __isg_ref_sub_group_barrier(n, flags) barrier(flags)
#define __isg_ref_sub_group_barrier_scope(n, flags, scope) barrier(flags)

#define __ISG_REF_OP_add(a, b) ((a) + (b))
#define __ISG_REF_OP_min(a, b) min(a, b)
#define __ISG_REF_OP_max(a, b) max(a, b)
#define __ISG_REF_IDENTITY_add(s) ((s)0)
#define __ISG_REF_IDENTITY_min(s) ((s)__ISG_MAX_##s)
#define __ISG_REF_IDENTITY_max(s) ((s)__ISG_MIN_##s)

/* Every scalar type the khr extensions name; rows added to builtins.def later find theirs here. */
#define __ISG_REF_TYPES(X)                                                                         \
  X(char, none) X(uchar, none) X(short, none) X(ushort, none) X(int, none) X(uint, none)           \
  X(long, int64) X(ulong, int64) X(float, none) X(half, fp16) X(double, fp64)

/* Publish x into the current half; after the barrier, read native lane `src` and flip halves. */
#define __ISG_REF_EXCHANGE(T, req)                                                                 \
  ISG_REQ_##req(                                                                                   \
  __ISG_OVL void __isg_ref_put(__isg_native_t* n, T x) {                                           \
    ((__local T*)__isg_ref_area(n))[n->lid] = x;                                                   \
  }                                                                                                \
  __ISG_OVL T __isg_ref_take(__isg_native_t* n, T x, uint src) {                                   \
    (void)x;                                                                                       \
    T r = ((__local T*)__isg_ref_area(n))[__isg_ref_slot(n, src)];                                 \
    n->toggle ^= 1u;                                                                               \
    return r;                                                                                      \
  })
__ISG_REF_TYPES(__ISG_REF_EXCHANGE)

#define __ISG_REF_X(n, x, read) (__isg_ref_put(n, x), barrier(CLK_LOCAL_MEM_FENCE), read)
#define __isg_ref_sub_group_shuffle(n, x, i) __ISG_REF_X(n, x, __isg_ref_take(n, x, (i)))
#define __isg_ref_sub_group_shuffle_xor(n, x, m)                                                   \
  __ISG_REF_X(n, x, __isg_ref_take(n, x, (n)->nlid ^ (m)))
#define __isg_ref_sub_group_shuffle_down(n, x, d)                                                  \
  __ISG_REF_X(n, x, __isg_ref_take(n, x, (n)->nlid + (d)))
#define __isg_ref_sub_group_shuffle_up(n, x, d)                                                    \
  __ISG_REF_X(n, x, __isg_ref_take(n, x, __isg_ref_up(n, (d))))

/* Collectives fold members [first, end) of the native sub-group in increasing local id, starting
 * from the operation's identity, then flip halves. */
#define __ISG_REF_FOLD(T, op)                                                                      \
  __ISG_OVL T __isg_ref_fold_##op(__isg_native_t* n, T x, uint first, uint end) {                  \
    (void)x;                                                                                       \
    __local T* p = (__local T*)__isg_ref_area(n);                                                  \
    T r = __ISG_REF_IDENTITY_##op(T);                                                              \
    for (uint k = first; k < end; ++k) r = (T)__ISG_REF_OP_##op(r, p[n->nbase + k]);               \
    n->toggle ^= 1u;                                                                               \
    return r;                                                                                      \
  }
/* cl_khr_subgroups has collectives for 32- and 64-bit types and half; extended types add the
 * 8- and 16-bit integers. Folds exist for every type (all/any use int); which collectives the
 * double offers is decided by the macros below. */
#define __ISG_REF_FOLDS(T, req)                                                                    \
  ISG_REQ_##req(__ISG_REF_FOLD(T, add) __ISG_REF_FOLD(T, min) __ISG_REF_FOLD(T, max))
__ISG_REF_TYPES(__ISG_REF_FOLDS)

/* FOLD is __isg_ref_fold_<op>, pasted by the caller: a bare `min` passed on as a macro argument
 * would be macro-expanded first, and drivers' headers define min and max as macros. */
#define __ISG_REF_COLLECTIVE(n, x, FOLD, first, end) __ISG_REF_X(n, x, FOLD(n, x, (first), (end)))
#define __isg_ref_sub_group_reduce_add(n, x) __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_add, 0u, (n)->nsize)
#define __isg_ref_sub_group_reduce_min(n, x) __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_min, 0u, (n)->nsize)
#define __isg_ref_sub_group_reduce_max(n, x) __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_max, 0u, (n)->nsize)
#define __isg_ref_sub_group_scan_inclusive_add(n, x)                                               \
  __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_add, 0u, (n)->nlid + 1u)
#define __isg_ref_sub_group_scan_inclusive_min(n, x)                                               \
  __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_min, 0u, (n)->nlid + 1u)
#define __isg_ref_sub_group_scan_inclusive_max(n, x)                                               \
  __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_max, 0u, (n)->nlid + 1u)
#define __isg_ref_sub_group_scan_exclusive_add(n, x) __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_add, 0u, (n)->nlid)
#define __isg_ref_sub_group_scan_exclusive_min(n, x) __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_min, 0u, (n)->nlid)
#define __isg_ref_sub_group_scan_exclusive_max(n, x) __ISG_REF_COLLECTIVE(n, x, __isg_ref_fold_max, 0u, (n)->nlid)
/* A cluster is an aligned run of `cs` lanes; in a partial sub-group only its real members take
 * part. */
#define __ISG_REF_CLUSTER(n, x, FOLD, cs)                                                          \
  __ISG_REF_COLLECTIVE(n, x, FOLD, (n)->nlid & ~((cs) - 1u),                                       \
                       min((n)->nsize, ((n)->nlid & ~((cs) - 1u)) + (cs)))
#define __isg_ref_sub_group_clustered_reduce_add(n, x, cs) __ISG_REF_CLUSTER(n, x, __isg_ref_fold_add, cs)
#define __isg_ref_sub_group_clustered_reduce_min(n, x, cs) __ISG_REF_CLUSTER(n, x, __isg_ref_fold_min, cs)
#define __isg_ref_sub_group_clustered_reduce_max(n, x, cs) __ISG_REF_CLUSTER(n, x, __isg_ref_fold_max, cs)
/* all/any: the predicates as 0/1 ints, folded with min/max. */
#define __isg_ref_sub_group_all(n, predicate)                                                      \
  __ISG_REF_COLLECTIVE(n, (int)((predicate) != 0), __isg_ref_fold_min, 0u, (n)->nsize)
#define __isg_ref_sub_group_any(n, predicate)                                                      \
  __ISG_REF_COLLECTIVE(n, (int)((predicate) != 0), __isg_ref_fold_max, 0u, (n)->nsize)
