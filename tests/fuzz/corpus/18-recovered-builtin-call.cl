// Regression: an array sized by a builtin called with the wrong arguments, declared twice;
// Clang 15 crashed on the recovery expression it kept for the call.
a[get_global_id()];
a[get_global_id( )] = intel_sub_group_shuffle(1u, 0u);
kernel void k(global uint* o) { int b[get_local_id(0, 1)]; int b[get_local_id()]; }
