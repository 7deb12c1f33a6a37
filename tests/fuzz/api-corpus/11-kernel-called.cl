kernel void inner(global int* p) { p[0] = get_sub_group_size(); }
kernel void outer(global int* p) { inner(p); }
