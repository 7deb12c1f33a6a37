// SPDX-License-Identifier: MIT
// A register-tiled GEMM in the style of CLBlast's Xgemm kernel family: tuning parameters arrive
// as -D options (work-group tile MWG x NWG, thread grid MDIMC x NDIMC, vector width VWN,
// precision), all helpers are INLINE_FUNC, and the sub-group path hides behind a wrapper that is
// only compiled when USE_SUBGROUP_SHUFFLING == 1, with the vendor flavour chosen by further
// flags. Written for this test; not taken from that project.
//
// Computes C := alpha * A^T * B + beta * C for column-major matrices stored as
//   A: K x M (agm[k * kSizeM + m]),  B: K x N (bgm[k * kSizeN + n]),  C: M x N (cgm[n * kSizeM + m]),
// with M % MWG == 0, N % NWG == 0 and K % SUBGROUP_SIZE == 0 (the caller pads, as CLBlast does).
//
// Shuffle path: a sub-group is SUBGROUP_SIZE consecutive threads along M that share the same
// columns of B. For each slice of SUBGROUP_SIZE values of k, every lane loads the B row of its
// own k once, and the lanes then pass those rows around with shuffles instead of every lane
// loading every row.

// ---- common.opencl ------------------------------------------------------------------------
#ifndef PRECISION
#define PRECISION 32
#endif
#if PRECISION == 32
typedef float real;
typedef float2 real2;
typedef float4 real4;
#define ZERO 0.0f
#elif PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double4 real4;
#define ZERO 0.0
#endif

#ifndef USE_INLINE_KEYWORD
#define USE_INLINE_KEYWORD 1
#endif
#if USE_INLINE_KEYWORD == 1
#define INLINE_FUNC inline
#else
#define INLINE_FUNC
#endif

#define MultiplyAdd(c, a, b) c = mad(a, b, c)
#define AXPBY(e, a, b, c, d) e = (a) * (b) + (c) * (d)

// ---- sub-group shuffling --------------------------------------------------------------------
#ifndef USE_SUBGROUP_SHUFFLING
#define USE_SUBGROUP_SHUFFLING 0
#endif
#ifndef SUBGROUP_SHUFFLING_NVIDIA_PRE_VOLTA
#define SUBGROUP_SHUFFLING_NVIDIA_PRE_VOLTA 0
#endif
#ifndef SUBGROUP_SHUFFLING_INTEL
#define SUBGROUP_SHUFFLING_INTEL 0
#endif

#if USE_SUBGROUP_SHUFFLING == 1
#if SUBGROUP_SHUFFLING_INTEL == 1
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#ifndef SUBGROUP_SIZE
#define SUBGROUP_SIZE 8  // Intel GPUs run these kernels SIMD8 unless told otherwise
#endif
#elif SUBGROUP_SHUFFLING_NVIDIA_PRE_VOLTA == 1
#define SUBGROUP_SIZE 32
#endif

#if SUBGROUP_SHUFFLING_NVIDIA_PRE_VOLTA == 1
// Never compiled in this test: shows the inline-PTX variant such libraries keep beside the
// Intel one, which the rewriter must leave alone.
INLINE_FUNC real clblast_sub_group_shuffle(real reg, int src) {
  real result;
  __asm__("shfl.idx.b32 %0, %1, %2, 0x1f;" : "=f"(result) : "f"(reg), "r"(src));
  return result;
}
INLINE_FUNC int clblast_get_sub_group_local_id() {
  int ret;
  __asm__("mov.u32 %0, %%laneid;" : "=r"(ret));
  return ret;
}
#else
INLINE_FUNC real clblast_sub_group_shuffle(real reg, int src) {
  return intel_sub_group_shuffle(reg, src);
}
#if VWN == 2
INLINE_FUNC real2 clblast_sub_group_shuffle2(real2 reg, int src) {
  return intel_sub_group_shuffle(reg, src);
}
#endif
INLINE_FUNC int clblast_get_sub_group_local_id() { return get_sub_group_local_id(); }
#endif
#endif  // USE_SUBGROUP_SHUFFLING == 1

// ---- xgemm_part1.opencl ---------------------------------------------------------------------
#ifndef MWG
#define MWG 16
#endif
#ifndef NWG
#define NWG 8
#endif
#ifndef MDIMC
#define MDIMC 8
#endif
#ifndef NDIMC
#define NDIMC 4
#endif
#ifndef VWN
#define VWN 1
#endif
#define MWI (MWG / MDIMC)  // rows of C per thread
#define NWI (NWG / NDIMC)  // columns of C per thread

#if VWN == 1
typedef real realN;
#define LOADN(k, n, bgm, kSizeN) bgm[(k) * (kSizeN) + (n)]
#define SHUFFLE_N(v, src) clblast_sub_group_shuffle(v, src)
#elif VWN == 2
typedef real2 realN;
#define LOADN(k, n, bgm, kSizeN) vload2(0, &bgm[(k) * (kSizeN) + (n)])
#define SHUFFLE_N(v, src) clblast_sub_group_shuffle2(v, src)
#endif

#if USE_SUBGROUP_SHUFFLING == 1 && MDIMC % SUBGROUP_SIZE != 0
#error "the shuffle path needs whole sub-groups along M (MDIMC % SUBGROUP_SIZE == 0)"
#endif

INLINE_FUNC void InitAccRegisters(realN cpm[MWI][NWI / VWN]) {
#pragma unroll
  for (int _mi = 0; _mi < MWI; _mi += 1)
#pragma unroll
    for (int _ni = 0; _ni < NWI / VWN; _ni += 1) cpm[_mi][_ni] = (realN)ZERO;
}

INLINE_FUNC real LoadGlobalA(const __global real* restrict agm, const int _mi, const int kSizeM,
                             const int k) {
  const int mg = get_local_id(0) + _mi * MDIMC;  // strided rows: neighbours read neighbours
  const int idm = mg + get_group_id(0) * MWG;
  return agm[k * kSizeM + idm];
}

INLINE_FUNC realN LoadGlobalB(const __global real* restrict bgm, const int _ni, const int kSizeN,
                              const int k) {
  const int ng = get_local_id(1) * NWI + _ni * VWN;
  const int idn = ng + get_group_id(1) * NWG;
  return LOADN(k, idn, bgm, kSizeN);
}

// One slice of SUBGROUP_SIZE (shuffle path) or 1 (plain path) values of k.
INLINE_FUNC void XgemmSlice(const __global real* restrict agm, const __global real* restrict bgm,
                            const int kSizeM, const int kSizeN, const int kwg,
                            realN cpm[MWI][NWI / VWN]) {
#if USE_SUBGROUP_SHUFFLING == 1
  const int _lane = clblast_get_sub_group_local_id();
  realN bpm[NWI / VWN];
#pragma unroll
  for (int _ni = 0; _ni < NWI / VWN; _ni += 1)
    bpm[_ni] = LoadGlobalB(bgm, _ni, kSizeN, kwg + _lane);
#pragma unroll
  for (int _ki = 0; _ki < SUBGROUP_SIZE; _ki += 1) {
#pragma unroll
    for (int _ni = 0; _ni < NWI / VWN; _ni += 1) {
      const realN b = SHUFFLE_N(bpm[_ni], _ki);
#pragma unroll
      for (int _mi = 0; _mi < MWI; _mi += 1)
        MultiplyAdd(cpm[_mi][_ni], (realN)LoadGlobalA(agm, _mi, kSizeM, kwg + _ki), b);
    }
  }
#else
#pragma unroll
  for (int _ni = 0; _ni < NWI / VWN; _ni += 1) {
    const realN b = LoadGlobalB(bgm, _ni, kSizeN, kwg);
#pragma unroll
    for (int _mi = 0; _mi < MWI; _mi += 1)
      MultiplyAdd(cpm[_mi][_ni], (realN)LoadGlobalA(agm, _mi, kSizeM, kwg), b);
  }
#endif
}

// ---- xgemm_part2.opencl ---------------------------------------------------------------------
INLINE_FUNC void StoreResults(__global real* cgm, realN cpm[MWI][NWI / VWN], const int kSizeM,
                              const real alpha, const real beta) {
#pragma unroll
  for (int _ni = 0; _ni < NWI / VWN; _ni += 1) {
#pragma unroll
    for (int _mi = 0; _mi < MWI; _mi += 1) {
      const int mg = get_local_id(0) + _mi * MDIMC + get_group_id(0) * MWG;
      const int ng = get_local_id(1) * NWI + _ni * VWN + get_group_id(1) * NWG;
      realN c = cpm[_mi][_ni];
#if VWN == 1
      AXPBY(cgm[ng * kSizeM + mg], alpha, c, beta, cgm[ng * kSizeM + mg]);
#else
      AXPBY(cgm[ng * kSizeM + mg], alpha, c.x, beta, cgm[ng * kSizeM + mg]);
      AXPBY(cgm[(ng + 1) * kSizeM + mg], alpha, c.y, beta, cgm[(ng + 1) * kSizeM + mg]);
#endif
    }
  }
}

// ---- xgemm_part3.opencl ---------------------------------------------------------------------
#if USE_SUBGROUP_SHUFFLING == 1 && SUBGROUP_SHUFFLING_INTEL == 1
__attribute__((intel_reqd_sub_group_size(SUBGROUP_SIZE)))
#endif
__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void Xgemm(const int kSizeM, const int kSizeN, const int kSizeK, const real alpha,
           const real beta, const __global real* restrict agm, const __global real* restrict bgm,
           __global real* cgm) {
  realN cpm[MWI][NWI / VWN];
  InitAccRegisters(cpm);
#if USE_SUBGROUP_SHUFFLING == 1
  for (int kwg = 0; kwg < kSizeK; kwg += SUBGROUP_SIZE)
#else
  for (int kwg = 0; kwg < kSizeK; kwg += 1)
#endif
    XgemmSlice(agm, bgm, kSizeM, kSizeN, kwg, cpm);
  StoreResults(cgm, cpm, kSizeM, alpha, beta);
}
