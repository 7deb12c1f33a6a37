/* SPDX-License-Identifier: MIT */
/*
 * The table rows of the collective families: every spelling of broadcast, reduce and scan
 * (sub_group_* of cl_intel_subgroups and the intel_sub_group_* that cl_intel_subgroups_short
 * and _char use for their 8- and 16-bit forms) names the strategy's body for its operation.
 * A strategy's family file defines only the bodies, with op one of add, min, max:
 *   __ISG_BROADCAST_BODY(name, T, s, w, req)
 *   __ISG_REDUCE_BODY(name, op, T, s, w, req)
 *   __ISG_SCAN_INCLUSIVE_BODY(name, op, T, s, w, req)
 *   __ISG_SCAN_EXCLUSIVE_BODY(name, op, T, s, w, req)
 */
#ifdef ISG_NEED_broadcast
#define __ISG_DEF_sub_group_broadcast(T, s, w, req) __ISG_BROADCAST_BODY(sub_group_broadcast, T, s, w, req)
#define __ISG_DEF_intel_sub_group_broadcast(T, s, w, req) __ISG_BROADCAST_BODY(intel_sub_group_broadcast, T, s, w, req)
#define __ISG_ROW_broadcast(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)
#else
#define __ISG_ROW_broadcast(name, shape, typeset)
#endif

#ifdef ISG_NEED_reduce
#define __ISG_DEF_sub_group_reduce_add(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_add, add, T, s, w, req)
#define __ISG_DEF_sub_group_reduce_min(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_min, min, T, s, w, req)
#define __ISG_DEF_sub_group_reduce_max(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_max, max, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_add(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_add, add, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_min(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_min, min, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_max(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_max, max, T, s, w, req)
#define __ISG_ROW_reduce(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)
#else
#define __ISG_ROW_reduce(name, shape, typeset)
#endif

#ifdef ISG_NEED_scan
#define __ISG_DEF_sub_group_scan_inclusive_add(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(sub_group_scan_inclusive_add, add, T, s, w, req)
#define __ISG_DEF_sub_group_scan_inclusive_min(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(sub_group_scan_inclusive_min, min, T, s, w, req)
#define __ISG_DEF_sub_group_scan_inclusive_max(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(sub_group_scan_inclusive_max, max, T, s, w, req)
#define __ISG_DEF_sub_group_scan_exclusive_add(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(sub_group_scan_exclusive_add, add, T, s, w, req)
#define __ISG_DEF_sub_group_scan_exclusive_min(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(sub_group_scan_exclusive_min, min, T, s, w, req)
#define __ISG_DEF_sub_group_scan_exclusive_max(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(sub_group_scan_exclusive_max, max, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_add(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(intel_sub_group_scan_inclusive_add, add, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_min(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(intel_sub_group_scan_inclusive_min, min, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_max(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(intel_sub_group_scan_inclusive_max, max, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_add(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(intel_sub_group_scan_exclusive_add, add, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_min(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(intel_sub_group_scan_exclusive_min, min, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_max(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(intel_sub_group_scan_exclusive_max, max, T, s, w, req)
#define __ISG_ROW_scan(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)
#else
#define __ISG_ROW_scan(name, shape, typeset)
#endif
