// SPDX-License-Identifier: MIT
// A fully-connected layer and a row normalization written the way OpenVINO's GPU plugin
// (clDNN) writes kernels: every size, type and even the kernel names arrive as -D options, the
// body is reached through layers of helper macros, and the sub-group builtins are called through
// those macros inside helper functions. Written for this test; not taken from that project.
//
// Build options the host passes (see realworld_cldnn_test.cpp):
//   -DKERNEL_ID=<suffix> -DSIMD=<8|16> -DINPUT0_TYPE=float -DFILTER_TYPE=float
//   -DOUTPUT_TYPE=float -DACCUMULATOR_TYPE=float -DIN_FEATURES=.. -DOUT_FEATURES=..
//   -DBATCH=.. -DBIAS_TERM=1 -DACTIVATION_RELU=1 -DACTIVATION_SLOPE=..
#pragma OPENCL EXTENSION cl_intel_subgroups : enable

// ---- the common header every clDNN kernel includes (fetch/common/data_types), abridged ----
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define JOIN_(a, b, c) a##_##b##_##c
#define JOIN(a, b, c) JOIN_(a, b, c)
#define FUNC(name) CAT(CAT(name, _), KERNEL_ID)
#define FUNC_CALL(name) CAT(CAT(name, _), KERNEL_ID)
#define KERNEL(name) __kernel void FUNC(name)
#define REQD_SUB_GROUP_SIZE(sg_size) __attribute__((intel_reqd_sub_group_size(sg_size)))
#define unroll_for __attribute__((opencl_unroll_hint)) for

#define AS_TYPE(type, val) CAT(as_, type)(val)
#define TO_TYPE(type, val) CAT(convert_, type)(val)
#define MAKE_VECTOR_TYPE(elem_type, size) CAT(elem_type, size)
#define AS_INPUT0_TYPE(val) AS_TYPE(INPUT0_TYPE, val)
#define AS_FILTER_TYPE(val) AS_TYPE(FILTER_TYPE, val)
#define TO_OUTPUT_TYPE(val) TO_TYPE(OUTPUT_TYPE, val)
#define FILTER_TYPE8 MAKE_VECTOR_TYPE(FILTER_TYPE, 8)

// Block reads/writes of 32-bit units; the element type is re-interpreted, never converted.
#define BLOCK_READ_UINT1(ptr, offset) intel_sub_group_block_read((const __global uint*)(ptr) + (offset))
#define BLOCK_READ_UINT8(ptr, offset) intel_sub_group_block_read8((const __global uint*)(ptr) + (offset))
#define BLOCK_WRITE_UINT1(ptr, offset, val) \
  intel_sub_group_block_write((__global uint*)(ptr) + (offset), as_uint(val))
#define DT_INPUT_BLOCK_READ(ptr, offset) AS_INPUT0_TYPE(BLOCK_READ_UINT1(ptr, offset))
#define DT_FILTER_BLOCK_READ8(ptr, offset) AS_TYPE(FILTER_TYPE8, BLOCK_READ_UINT8(ptr, offset))
#define DT_OUTPUT_BLOCK_WRITE(ptr, offset, val) BLOCK_WRITE_UINT1(ptr, offset, val)

#define SUB_GROUP_SHUFFLE(val, lane) intel_sub_group_shuffle(val, lane)
#define SUB_GROUP_SUM(val) sub_group_reduce_add(val)

#if ACTIVATION_RELU
#define ACTIVATION(x, slope) ((x) >= 0 ? (x) : (x) * (slope))
#else
#define ACTIVATION(x, slope) (x)
#endif

// ---- fully_connected_gpu_fb_oi_simd (this test's own kernel) ----------------------------------
// Weights come pre-arranged as os_i_osv<SIMD>: [OUT_FEATURES / SIMD][IN_FEATURES][SIMD], so one
// block read gives each lane the weight of its own output feature. The input row is block-read
// SIMD features at a time and broadcast lane by lane with shuffles.
#if IN_FEATURES % SIMD != 0 || OUT_FEATURES % SIMD != 0 || SIMD % 8 != 0
#error "fully_connected_gpu_fb_oi_simd: sizes must be multiples of SIMD (and SIMD of 8)"
#endif

#define MAD_ONE(acc, in_val, w, comp, lane) \
  acc = mad(TO_TYPE(ACCUMULATOR_TYPE, SUB_GROUP_SHUFFLE(in_val, lane)), w.comp, acc)
#define MAD_EIGHT(acc, in_val, w, base)   \
  MAD_ONE(acc, in_val, w, s0, (base) + 0); \
  MAD_ONE(acc, in_val, w, s1, (base) + 1); \
  MAD_ONE(acc, in_val, w, s2, (base) + 2); \
  MAD_ONE(acc, in_val, w, s3, (base) + 3); \
  MAD_ONE(acc, in_val, w, s4, (base) + 4); \
  MAD_ONE(acc, in_val, w, s5, (base) + 5); \
  MAD_ONE(acc, in_val, w, s6, (base) + 6); \
  MAD_ONE(acc, in_val, w, s7, (base) + 7)

// One chunk of SIMD input features against this sub-group's SIMD output features.
inline ACCUMULATOR_TYPE FUNC(dot_chunk)(const __global INPUT0_TYPE* input,
                                        const __global FILTER_TYPE* weights,
                                        uint input_offset, uint filter_offset,
                                        ACCUMULATOR_TYPE acc) {
  const INPUT0_TYPE in_val = DT_INPUT_BLOCK_READ(input, input_offset);
  unroll_for(uint kb = 0; kb < SIMD; kb += 8) {
    const FILTER_TYPE8 w = DT_FILTER_BLOCK_READ8(weights, filter_offset + kb * SIMD);
    MAD_EIGHT(acc, in_val, w, kb);
  }
  return acc;
}

inline OUTPUT_TYPE FUNC(finalize)(ACCUMULATOR_TYPE acc, const __global OUTPUT_TYPE* biases,
                                  uint ofm) {
#if BIAS_TERM
  acc += biases[ofm];
#endif
  return TO_OUTPUT_TYPE(ACTIVATION(acc, ACTIVATION_SLOPE));
}

REQD_SUB_GROUP_SIZE(SIMD)
KERNEL(fully_connected_gpu_fb_oi_simd)(const __global INPUT0_TYPE* input,
                                       __global OUTPUT_TYPE* output,
                                       const __global FILTER_TYPE* weights
#if BIAS_TERM
                                       , const __global OUTPUT_TYPE* biases
#endif
) {
  const uint ofm = get_global_id(0);
  const uint b = get_global_id(1);
  // The sub-group's first output feature: every lane of a sub-group works on one OSV block.
  const uint ofm_block = (ofm - get_sub_group_local_id()) / SIMD;

  ACCUMULATOR_TYPE acc = 0;
  for (uint ifm = 0; ifm < IN_FEATURES; ifm += SIMD) {
    acc = FUNC_CALL(dot_chunk)(input, weights, b * IN_FEATURES + ifm,
                               (ofm_block * IN_FEATURES + ifm) * SIMD, acc);
  }
#if !BIAS_TERM
  const __global OUTPUT_TYPE* biases = 0;
#endif
  const OUTPUT_TYPE result = FUNC_CALL(finalize)(acc, biases, ofm);
  DT_OUTPUT_BLOCK_WRITE(output, b * OUT_FEATURES + ofm_block * SIMD, result);
}

// ---- mvn_gpu_ref_across_features (row normalization with sub-group reductions) ----------------
// One sub-group per row of OUT_FEATURES values: mean and variance by reductions, the total
// re-derived through an inclusive scan and a broadcast from the last lane as a cross-check.
inline ACCUMULATOR_TYPE FUNC(row_sum)(const __global OUTPUT_TYPE* row, ACCUMULATOR_TYPE shift) {
  ACCUMULATOR_TYPE partial = 0;
  for (uint i = get_sub_group_local_id(); i < OUT_FEATURES; i += get_sub_group_size())
    partial += (row[i] - shift) * (shift == 0 ? 1 : (row[i] - shift));
  return partial;
}

REQD_SUB_GROUP_SIZE(SIMD)
__attribute__((reqd_work_group_size(SIMD, 1, 1)))
KERNEL(mvn_gpu_ref_across_features)(const __global OUTPUT_TYPE* input,
                                    __global OUTPUT_TYPE* output,
                                    __global ACCUMULATOR_TYPE* stats) {
  const uint b = get_group_id(1);
  const __global OUTPUT_TYPE* row = input + b * OUT_FEATURES;

  const ACCUMULATOR_TYPE partial = FUNC_CALL(row_sum)(row, 0);
  const ACCUMULATOR_TYPE total = SUB_GROUP_SUM(partial);
  const ACCUMULATOR_TYPE scanned =
      sub_group_broadcast(sub_group_scan_inclusive_add(partial), get_max_sub_group_size() - 1);
  const ACCUMULATOR_TYPE mean = total / OUT_FEATURES;
  // Shifted by the mean, so the lambda-free "sum of squares" helper is reused as clDNN does.
  const ACCUMULATOR_TYPE variance = SUB_GROUP_SUM(FUNC_CALL(row_sum)(row, mean)) / OUT_FEATURES;
  const ACCUMULATOR_TYPE inv_std = native_rsqrt(variance + (ACCUMULATOR_TYPE)1e-5f);

  for (uint i = get_sub_group_local_id(); i < OUT_FEATURES; i += SIMD)
    output[b * OUT_FEATURES + i] = TO_OUTPUT_TYPE((row[i] - mean) * inv_std);
  if (get_sub_group_local_id() == 0) {
    stats[2 * b] = mean;
    stats[2 * b + 1] = scanned / OUT_FEATURES;
  }
}
