// SPDX-License-Identifier: MIT
// Kernels of real Intel-targeted code that more than one suite launches.
#pragma once

#include <string>

namespace isgtest {

// OpenVINO's attention (sdpa_opt, issue 66), with no reqd_work_group_size: launched in work-groups
// one work-item wide in y (its (1, 1, 64); y here, since Intel's CPU runtime forms sub-groups
// along x alone), each member's block-read pointer the first's plus its lane, under a test of the
// sub-group's id and a loop whose bound comes from get_global_id(1) (with n = 125 over rows of
// 32, the last row runs fewer steps). Intel's driver reads from member 0's pointer; the layer can
// tell the bound is one value across a work-group only from the launch's size.
// kernel `name`(global const int* in, global int* out, int n), sub-groups of S.
inline std::string rowBlocksKernel(const std::string& name, unsigned S) {
  const std::string s = std::to_string(S);
  return "__attribute__((intel_reqd_sub_group_size(" + s + ")))\n"
         "kernel void " + name + "(global const int* in, global int* out, int n) {\n"
         "  const size_t g = get_global_id(0) + get_global_size(0) * get_global_id(1);\n"
         "  const uint steps = min((uint)(n - (int)get_global_id(1) * 32) / 16u, 3u);\n"
         "  uint off = (uint)get_global_id(1) * 32u + (uint)get_local_id(0);\n"
         "  int acc = -1;\n"
         "  if (get_sub_group_id() * " + s + " < 16) {\n"
         "    acc = 0;\n"
         "    for (uint i = 0; i < steps; ++i) {\n"
         "      acc += (int)intel_sub_group_block_read((const global uint*)in + off) ^ (int)(i << 12);\n"
         "      off += 8u;\n"
         "    }\n"
         "  }\n"
         "  out[g] = acc;\n"
         "}\n";
}

}  // namespace isgtest
