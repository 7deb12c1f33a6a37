#define CALL(f, x) f(x)
int a(int x) { return sub_group_reduce_add(x); }
int b(int x) { return x + 1; }
kernel void k(global int* p) { p[0] = CALL(a, p[0]) + CALL(b, p[1]); }
