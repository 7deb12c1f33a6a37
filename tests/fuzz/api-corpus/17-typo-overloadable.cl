// Regression: an undeclared identifier next to a builtin name, passed as an argument; Clang's
// typo correction used to crash the rewriter here.
kernel void inner(global int* p) { p[0] = get_sub_group_size(); }
kernel void outer(global int* p) { inner(pintel_sub_group_shuffle_up); }
