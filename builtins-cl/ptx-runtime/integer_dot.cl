/* cl_khr_integer_dot_product on NVIDIA (rewriter/src/ptx/builtin_binding.cpp links this beside
 * workitems.cl): NVIDIA's driver advertises the extension, libclc 15 defines none of its
 * functions. PTX's dp4a (sm_61 on; the layer's PTX needs sm_70) multiplies the four byte pairs of
 * two 32-bit registers, element 0 the least significant byte, in any mix of signedness, and adds
 * them exactly: four products of bytes cannot leave 32 bits. The saturating forms add the
 * accumulator with add_sat, as the spec defines them (the sum of the exact products, then a
 * saturating addition).
 */
#define __ISG_DOT_OVL __attribute__((overloadable))

#define __ISG_DP4A(suffix, atype, btype, ret)                                                  \
  static inline ret __isg_dp4a_##suffix(uint a, uint b) {                                      \
    ret d;                                                                                     \
    __asm__("dp4a." #atype "." #btype " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0)); \
    return d;                                                                                  \
  }
__ISG_DP4A(uu, u32, u32, uint)
__ISG_DP4A(ss, s32, s32, int)
__ISG_DP4A(us, u32, s32, int)
__ISG_DP4A(su, s32, u32, int)
#undef __ISG_DP4A

/* OpenCL C's own overloads of dot: Clang's lazy builtin declarations are only looked up for a
 * name nothing else declares, and the integer overloads below declare dot (the shims of half's
 * dot call the float one). */
#define __ISG_DOT_OF(T)                                        \
  T __attribute__((overloadable, const)) dot(T, T);            \
  T __attribute__((overloadable, const)) dot(T##2, T##2);      \
  T __attribute__((overloadable, const)) dot(T##3, T##3);      \
  T __attribute__((overloadable, const)) dot(T##4, T##4);
__ISG_DOT_OF(float)
#ifdef cl_khr_fp64
__ISG_DOT_OF(double)
#endif
#ifdef cl_khr_fp16
__ISG_DOT_OF(half)
#endif
#undef __ISG_DOT_OF

/* Each signedness: the packed functions, then the vector ones on the same bits. */
#define __ISG_DOT(suffix, ret, atype, btype)                                                    \
  ret __ISG_DOT_OVL dot_4x8packed_##suffix##_##ret(uint a, uint b) { return __isg_dp4a_##suffix(a, b); } \
  ret __ISG_DOT_OVL dot_acc_sat_4x8packed_##suffix##_##ret(uint a, uint b, ret acc) {         \
    return add_sat(__isg_dp4a_##suffix(a, b), acc);                                           \
  }                                                                                            \
  ret __ISG_DOT_OVL dot(atype a, btype b) { return __isg_dp4a_##suffix(as_uint(a), as_uint(b)); } \
  ret __ISG_DOT_OVL dot_acc_sat(atype a, btype b, ret acc) {                                   \
    return add_sat(__isg_dp4a_##suffix(as_uint(a), as_uint(b)), acc);                         \
  }
__ISG_DOT(uu, uint, uchar4, uchar4)
__ISG_DOT(ss, int, char4, char4)
__ISG_DOT(us, int, uchar4, char4)
__ISG_DOT(su, int, char4, uchar4)
#undef __ISG_DOT
#undef __ISG_DOT_OVL
