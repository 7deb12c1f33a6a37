#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FUNC(name) CAT(CAT(name, _), KERNEL_ID)
#define FUNC_CALL(name) CAT(CAT(name, _), KERNEL_ID)
#define SUM(x) sub_group_reduce_add(x)
#define ID(f) f
#define APPLY(f, x) f(x)
#define KERNEL_ID k7
float FUNC(part)(float v) { return intel_sub_group_shuffle_up(v, v, 1u); }
kernel void FUNC(run)(global float* p) {
  float v = p[get_global_id(0)];
  p[get_global_id(0)] = SUM(FUNC_CALL(part)(v)) + ID(FUNC_CALL(part))(v) + SUM(APPLY(ID(part_k7), v));
}
