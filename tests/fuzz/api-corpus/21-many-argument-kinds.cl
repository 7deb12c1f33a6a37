	typedef struct { float scale; int offset; short pad[3]; } params_t;
kernel void mixed(global float* out, constant float* weights, local float* tmp, params_t p,
                  float4 bias, sampler_t smp, read_only image2d_t img, uchar flag) {
  size_t g = get_global_id(0);
  tmp[get_local_id(0)] = weights[g & 15] * p.scale;
  barrier(CLK_LOCAL_MEM_FENCE);
  float v = intel_sub_group_shuffle_xor(tmp[get_local_id(0)], 1u) + bias.x + (float)flag;
  uint4 px = read_imageui(img, smp, (int2)((int)g, 0));
  out[g] = v + (float)px.x + (float)p.offset;
}
kernel void plain(global int* p) { p[get_global_id(0)] += 1; }
