// SPDX-License-Identifier: MIT
// Writes OpenCL C programs that call every builtin of builtins-cl/builtins.def with every type of
// its row, one program per sub-group size, for strict_compile.sh: each strategy's rewritten
// output must compile with clang-15 under every OpenCL C version. Generated from the table
// (tests/e2e/case_table.h), so rows added later are covered without touching this file. The
// programs also hold what real projects write around the builtins: a prototype of a builtin and
// helpers defined by a macro that takes the builtin's name as an argument.
//   all_builtins_sources OUTDIR      writes OUTDIR/all_S<S>.cl for S = 8, 16, 32, 64
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "case_table.h"

namespace {

using namespace isge2e;

std::string vec(const std::string& e, unsigned w) { return w == 1 ? e : e + std::to_string(w); }

std::string program(unsigned S) {
  std::ostringstream o;
  o << "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
    << "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    << "#define ATTR __attribute__((intel_reqd_sub_group_size(" << S << ")))\n"
    // A helper that calls a builtin: the context is threaded through it.
    << "uint helper(uint x) { return intel_sub_group_shuffle(x, 0u) + get_sub_group_local_id(); }\n"
    << "#ifdef cl_intel_subgroups_char\n"
    << "uchar16 __attribute__((overloadable)) intel_sub_group_block_read_uc16(const __global uchar* p);\n"
    << "#endif\n"
    << "#define DECLARE_READ(suffix, func, T, P) \\\n"
    << "  T __attribute__((overloadable)) read##suffix(const __global P* p) { return func(p); }\n"
    << "DECLARE_READ(, intel_sub_group_block_read, uint, uint)\n"
    << "DECLARE_READ(2, intel_sub_group_block_read2, uint2, uint)\n"
    << "DECLARE_READ(_us, intel_sub_group_block_read_us, ushort, ushort)\n"
    << "ATTR kernel void macro_helpers(global uint* a, global ushort* b) {\n"
    << "  a[0] = read(a) + read2(a).y + read_us(b);\n"
    << "#ifdef cl_intel_subgroups_char\n"
    << "  a[1] = intel_sub_group_block_read_uc16((const __global uchar*)b).s3;\n"
    << "#endif\n"
    << "}\n";
  unsigned k = 0;
  for (const FuncRow& f : funcRows()) {
    // Only strategies that know the active work-items declare these (builtins.def, nonuniform):
    // strict_compile.sh defines the macro for them.
    if (f.activeMembers) o << "#ifdef ISG_TEST_ACTIVE_SET\n";
    o << "ATTR kernel void k" << k++ << "_" << f.name << "(global uchar* buf) {\n";
    if (f.shape == "U_V") o << "  *(global uint*)buf = " << f.name << "() + helper(1u);\n";
    else if (f.shape == "V_FLAGS") {
      o << "  " << f.name << "(CLK_LOCAL_MEM_FENCE);\n"
        << "#if __OPENCL_C_VERSION__ >= 200\n"
        << "  " << f.name << "(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);\n"
        << "#endif\n";
    } else {
      // Shapes without gentype: the result's type and the arguments.
      static const char* const plain[][3] = {{"I_I", "int", "*(global int*)buf"},
                                             {"I_V", "int", ""},
                                             {"U4_V", "uint4", ""},
                                             {"U4_I", "uint4", "*(global int*)buf"},
                                             {"I_U4", "int", "*(global uint4*)buf"},
                                             {"I_U4U", "int", "*(global uint4*)buf, (uint)buf[1]"},
                                             {"U_U4", "uint", "*(global uint4*)buf"}};
      for (const auto& [shape, result, args] : plain)
        if (f.shape == shape)
          o << "  *(global " << result << "*)buf = " << f.name << "(" << args << ");\n";
    }
    for (const TypeRow& t : f.types) {
      const std::string p = "*(global " + t.type + "*)buf";
      o << "  { " << t.type << " x = " << p << "; ";
      if (f.shape == "T_T") o << p << " = " << f.name << "(x); }\n";
      else if (f.shape == "T_TU") o << p << " = " << f.name << "(x, (uint)buf[1]); }\n";
      else if (f.shape == "T_TTU") o << p << " = " << f.name << "(x, x, (uint)buf[1]); }\n";
      else if (f.shape == "T_TI")
        o << p << " = " << f.name << "(x, (int)buf[1]); }\n";
      else if (f.shape == "T_TIU")
        o << p << " = " << f.name << "(x, (int)buf[1], 4u); }\n";
      else if (f.shape == "I_T")
        o << "*(global int*)buf = " << f.name << "(x); }\n";
      else if (f.shape == "T_TZ")  // a local id of 1, 2 and 3 dimensions
        o << p << " = " << f.name << "(x, (size_t)buf[1]) + " << f.name << "(x, 1, 0) + " << f.name
          << "(x, 0, 1, 0); }\n";
      else o << "}\n";
    }
    o << "}\n";
    if (f.activeMembers) o << "#endif\n";
  }
  for (const BlockRow& b : blockRows()) {
    const std::string V = vec(b.element, b.width);
    o << "ATTR kernel void k" << k++ << "_" << b.read << "(global " << b.element
      << "* p, read_only image2d_t ri, write_only image2d_t wi) {\n"
      << "  " << V << " v = " << b.read << "((const global " << b.element << "*)p);\n"
      << "  " << b.write << "(p, v);\n"
      << "  " << V << " w = " << b.read << "(ri, (int2)(0, 0));\n"
      << "  " << b.write << "(wi, (int2)(4, 0), w);\n"
      << "}\n";
  }
  // cl_intel_media_block_io: constant regions (a macro, as real code writes them), read_write
  // images where the OpenCL C version has them.
  for (const MediaRow& m : mediaRows()) {
    const std::string V = vec(m.element, m.width);
    const unsigned eb = scalarBytes(m.element);
    o << "#define WIDTH_" << k << " " << 16 / eb << "\n"
      << "ATTR kernel void k" << k << "_" << m.read
      << "(read_only image2d_t ri, write_only image2d_t wi) {\n"
      << "  " << V << " v = " << m.read << "((int2)(4, 1), WIDTH_" << k << ", 2, ri);\n"
      << "  " << m.write << "((int2)(0, 0), " << 32 / eb << ", 8, v, wi);\n"
      << "}\n"
      << "#if (__OPENCL_C_VERSION__ >= 200 && __OPENCL_C_VERSION__ < 300) || "
         "defined(__opencl_c_read_write_images)\n"
      << "ATTR kernel void k" << k << "_rw_" << m.read << "(read_write image2d_t img) {\n"
      << "  " << V << " v = " << m.read << "((int2)(-4, -1), " << 4 / eb << ", 64, img);\n"
      << "  " << m.write << "((int2)(0, 0), " << 4 / eb << ", 64, v, img);\n"
      << "}\n"
      << "#endif\n";
    ++k;
  }
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: all_builtins_sources OUTDIR\n";
    return 2;
  }
  for (unsigned S : {8u, 16u, 32u, 64u}) {
    std::string path = std::string(argv[1]) + "/all_S" + std::to_string(S) + ".cl";
    std::ofstream out(path);
    out << program(S);
    if (!out) {
      std::cerr << "all_builtins_sources: cannot write " << path << "\n";
      return 1;
    }
  }
  return 0;
}
