
#define SG_OP(op, x, y) intel_sub_group_##op(x, y)
#define JOIN(a, b) a##_##b
#define FN(name) JOIN(name, TYPE)
TYPE FN(shuf)(TYPE v) { return SG_OP(shuffle_xor, v, 1u); }
kernel void FN(run)(global TYPE* p) { p[get_global_id(0)] = FN(shuf)(p[get_global_id(0)]); }
