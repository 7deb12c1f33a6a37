*#define BLOCK_READ(p)as_float(intel_sub_group_block_read)
v=BLOCK_READ()