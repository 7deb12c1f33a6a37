/* SPDX-License-Identifier: MIT */
/*
 * What every strategy's library builds on: the requirement guards that let one table row
 * expand to nothing on a device without its type, the declaration prefix of every function,
 * and the identities of the min/max scans. Files of builtins-cl/common/ and of the strategy's
 * folder are concatenated in file-name order; a strategy file with the same name as a common
 * one replaces it.
 */

#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif
#if defined(cl_khr_fp64) && __OPENCL_C_VERSION__ < 300
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* A call of a library overload that takes a 16-wide vector makes x86 clang drivers (PoCL) warn,
 * at the user's call site, that the AVX argument ABI changes (-Wpsabi): under -Werror (oneDNN)
 * that fails a program Intel's compiler builds. The pragma covers the whole program, the
 * user's own such calls included, which is the price of a warning we cannot scope. */
#if defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#pragma clang diagnostic ignored "-Wpsabi"
#endif

/* Table rows carry a requirement; a row whose requirement the device lacks expands to nothing. */
#define ISG_REQ_none(x) x
#ifdef cl_khr_fp16
#define ISG_REQ_fp16(x) x
#else
#define ISG_REQ_fp16(x)
#endif
#if defined(cl_khr_fp64) || (__OPENCL_C_VERSION__ >= 300 && defined(__opencl_c_fp64))
#define ISG_REQ_fp64(x) x
#else
#define ISG_REQ_fp64(x)
#endif
#if !defined(__EMBEDDED_PROFILE__) || defined(cles_khr_int64)
#define ISG_REQ_int64(x) x
#else
#define ISG_REQ_int64(x)
#endif

#define __ISG_OVL static inline __attribute__((overloadable))

/* Identities of the min/max scans, by scalar type name. The infinities are spelled by their
 * bits: Clang 18 and later warn of INFINITY under -cl-fast-relaxed-math or
 * -cl-finite-math-only (-Wnan-infinity-disabled), which -Werror makes a failed build. */
#define __ISG_MAX_char CHAR_MAX
#define __ISG_MAX_uchar UCHAR_MAX
#define __ISG_MAX_short SHRT_MAX
#define __ISG_MAX_ushort USHRT_MAX
#define __ISG_MAX_int INT_MAX
#define __ISG_MAX_uint UINT_MAX
#define __ISG_MAX_long LONG_MAX
#define __ISG_MAX_ulong ULONG_MAX
#define __ISG_MAX_float as_float(0x7f800000u)
#define __ISG_MAX_half as_half((ushort)0x7c00)
#define __ISG_MAX_double as_double(0x7ff0000000000000ul)
#define __ISG_MIN_char CHAR_MIN
#define __ISG_MIN_uchar 0
#define __ISG_MIN_short SHRT_MIN
#define __ISG_MIN_ushort 0
#define __ISG_MIN_int INT_MIN
#define __ISG_MIN_uint 0
#define __ISG_MIN_long LONG_MIN
#define __ISG_MIN_ulong 0
#define __ISG_MIN_float as_float(0xff800000u)
#define __ISG_MIN_half as_half((ushort)0xfc00)
#define __ISG_MIN_double as_double(0xfff0000000000000ul)

/* The collectives' operators, and the identities of the exclusive scans as cl_khr_subgroups
 * defines them (+-INFINITY for floating point), by operation and scalar type name. */
#define __ISG_OP_add(a, b) ((a) + (b))
#define __ISG_OP_min(a, b) min(a, b)
#define __ISG_OP_max(a, b) max(a, b)
/* cl_khr_subgroup_clustered_reduce's other operators (their folds start from a member's value,
 * __ISG_FIRST_<op>, and need no identity); the logical ones give 0 or 1, as OpenCL C's && and
 * || do. */
#define __ISG_OP_mul(a, b) ((a) * (b))
#define __ISG_OP_and(a, b) ((a) & (b))
#define __ISG_OP_or(a, b) ((a) | (b))
#define __ISG_OP_xor(a, b) ((a) ^ (b))
#define __ISG_OP_logical_and(a, b) ((a) && (b))
#define __ISG_OP_logical_or(a, b) ((a) || (b))
#define __ISG_OP_logical_xor(a, b) (!(a) != !(b))
/* A fold's start from its first member's value: a logical one's is that predicate's truth. */
#define __ISG_FIRST_add(a) (a)
#define __ISG_FIRST_mul(a) (a)
#define __ISG_FIRST_min(a) (a)
#define __ISG_FIRST_max(a) (a)
#define __ISG_FIRST_and(a) (a)
#define __ISG_FIRST_or(a) (a)
#define __ISG_FIRST_xor(a) (a)
#define __ISG_FIRST_logical_and(a) ((a) != 0)
#define __ISG_FIRST_logical_or(a) ((a) != 0)
#define __ISG_FIRST_logical_xor(a) ((a) != 0)
#define __ISG_IDENTITY_add(scalar) 0
#define __ISG_IDENTITY_min(scalar) __ISG_MAX_##scalar
#define __ISG_IDENTITY_max(scalar) __ISG_MIN_##scalar

/*
 * The sub-group layout every strategy shares (and the layer's host queries answer with): Intel
 * sub-groups are runs of S consecutive linear local ids (x fastest), the last one partial when
 * the work-group size is not a multiple of S. Each strategy's context starts with these fields.
 *
 * RX, RY, RZ: the kernel's reqd_work_group_size when the rewriter proved that every work-group
 * has that size and every sub-group is whole (size a multiple of S, uniform work-groups), else
 * 0, 0, 0. Known sizes make the layout constants, and sgsize == S lets the collectives drop
 * their partial-sub-group handling.
 */
#define __ISG_LAYOUT_FIELDS                                                                        \
  uint lid;     /* linear local id */                                                              \
  uint lsize;   /* work-items in this work-group */                                                \
  uint S;       /* sub-group size the kernel was compiled for (a power of two) */                  \
  uint sgid;    /* sub-group id */                                                                 \
  uint sglid;   /* sub-group local id */                                                           \
  uint sgsize;  /* members of this sub-group (< S only for a partial last one) */                  \
  uint base;    /* linear local id of this sub-group's member 0 */                                 \
  uint rounded; /* lsize rounded up to a multiple of S */
#define __ISG_LAYOUT_INIT(c, SIZE, RX, RY, RZ)                                                     \
  {                                                                                                \
    const bool __isg_known = (RX) != 0u;                                                           \
    uint __isg_lx = __isg_known ? (RX) : (uint)get_local_size(0);                                  \
    uint __isg_ly = __isg_known ? (RY) : (uint)get_local_size(1);                                  \
    (c).lid = (uint)get_local_id(0) +                                                              \
              __isg_lx * ((__isg_known && (RY) == 1u ? 0u : (uint)get_local_id(1)) +               \
                          __isg_ly * (__isg_known && (RZ) == 1u ? 0u : (uint)get_local_id(2)));    \
    (c).lsize = __isg_lx * __isg_ly * (__isg_known ? (RZ) : (uint)get_local_size(2));              \
    (c).S = (SIZE);                                                                                \
    (c).sgid = (c).lid / (c).S;                                                                    \
    (c).sglid = (c).lid % (c).S;                                                                   \
    (c).base = (c).lid - (c).sglid;                                                                \
    (c).sgsize = __isg_known ? (c).S : min((c).S, (c).lsize - (c).base);                           \
    (c).rounded = __isg_known ? (c).lsize : ((c).lsize + (c).S - 1u) / (c).S * (c).S;              \
  }
