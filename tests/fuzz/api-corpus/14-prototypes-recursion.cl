float f(float);
float g(float x) { return x > 0 ? f(x - 1) : sub_group_scan_inclusive_min(x); }
float f(float x) { return g(x); }
void (*ptr)(void);
kernel __attribute__((vec_type_hint(float4))) void k(global float* p) { p[0] = f(p[0]); }
