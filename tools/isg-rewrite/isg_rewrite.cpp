// SPDX-License-Identifier: MIT
// isg-rewrite: runs the rewriter outside OpenCL, to see what a driver would receive (usage()).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "isg/rewriter.h"
#include "isg/strategies.h"

namespace {

// The strategies' names as the table spells them: "native|nvidia-ptx|khr|local".
std::string strategyNames() {
  std::string names;
  for (const isg::StrategyFacts& f : isg::strategies()) names += (names.empty() ? "" : "|") + std::string(f.name);
  return names;
}

// --help prints to stdout and succeeds.
int usage(std::ostream& out) {
  out << "usage: isg-rewrite --strategy " << strategyNames() << "\n"
               "                   [--sub-group-size N] [--native-size N] [--fp16] [--fp64] [--no-images]\n"
               "                   [--pack-work-groups] [--launch-variant X,Y,Z] [--nv-sm NN]\n"
               "                   [--device-version NNN]\n"
               "                   [--device-extensions \"A B\"] [--device-features \"A B\"]\n"
               "                   [--driver-options FILE] [--manifest]\n"
               "                   [--module-output bitcode|spirv|ptx] [--spirv-bridge PATH]\n"
               "                   [--header NAME=PATH]... [build options...] [--] file.cl|file.spv\n"
               "       isg-rewrite --strategy S [--fp16] [--fp64] [--no-images] --declarations\n"
               "Build options are the driver's (-D, -I, -cl-*); an argument starting with --\n"
               "that is none of the above is an error. native passes the program through.\n"
               "Prints the source the driver would compile (or the manifest as JSON); exits 1\n"
               "with the build log when the program cannot be rewritten. --driver-options\n"
               "writes the build options the driver would get to FILE; --nv-sm sets the\n"
               "NVIDIA compute capability (e.g. 90) the nvidia-ptx library targets.\n"
               "Sizes and the default S are the strategy's, as the layer sets them;\n"
               "--native-size is the khr device's native sub-group size (default 32) and\n"
               "--sub-group-size the default S, as ISG_SUB_GROUP_SIZE sets it.\n"
               "--device-version (e.g. 300), --device-extensions and --device-features (space\n"
               "separated) say what the driver predefines, as the layer reads it off a device.\n"
               "--pack-work-groups: nvidia-ptx, the packed copies as ISG_PACK_WORK_GROUPS=1 asks\n"
               "for them (with --module-output ptx, their PTX beside the kernels').\n"
               "--launch-variant X,Y,Z: the program as the layer's launch variant for work-groups\n"
               "of X x Y x Z (ISG_LAUNCH_VARIANTS): kernels without reqd_work_group_size as if\n"
               "they declared it.\n"
               "--no-images: a device without CL_DEVICE_IMAGE_SUPPORT (no __IMAGE_SUPPORT__, no\n"
               "cl_intel_media_block_io).\n"
               "A SPIR-V module as input goes through the SPIR-V front end: the output is the\n"
               "module the driver would get, LLVM bitcode for cl_khr_spir drivers (default) or\n"
               "SPIR-V (--module-output spirv) or PTX for NVIDIA's driver (--module-output ptx,\n"
               "for --nv-sm); --spirv-bridge names libIntelSubgroupsSpirv.so\n"
               "(default: the installed one, or beside the program). OpenCL C source with\n"
               "--module-output ptx goes through the layer's own front end for NVIDIA\n"
               "(ISG_NVIDIA_FRONTEND=layer) and prints its PTX. --version prints the version.\n"
               "--declarations prints overloadable declarations of every builtin of the table\n"
               "(for compiling Intel code with clang-15).\n";
  return 0;
}

// A wrong command line: one line naming what is wrong, status 2.
[[noreturn]] void fail(const std::string& what) {
  std::cerr << "isg-rewrite: " << what << " (isg-rewrite --help shows the usage)\n";
  std::exit(2);
}

// A whole unsigned decimal number, or the command line is wrong.
unsigned number(const std::string& option, const std::string& v) {
  char* end = nullptr;
  const unsigned long n = v.empty() || v[0] == '-' ? 0 : std::strtoul(v.c_str(), &end, 10);
  if (!end || *end || n == 0 || n > 100000) fail(option + " '" + v + "' is not a positive whole number");
  return unsigned(n);
}

// The rewriter names the main file <source>, as the layer's build logs do for a program's
// source; here it is the user's file.
std::string namingFile(std::string log, const std::string& file) {
  const std::string placeholder = "<source>";
  for (std::size_t at = 0; (at = log.find(placeholder, at)) != std::string::npos; at += file.size())
    log.replace(at, placeholder.size(), file);
  return log;
}

bool readFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

// Build options are one string for the driver; keep multi-word arguments together.
std::string quoteOption(const std::string& a) {
  if (a.find_first_of(" \t\"'\\") == std::string::npos) return a;
  std::string q = "\"";
  for (char c : a) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  isg::RewriteInput in;
  isg::Strategy strategy = isg::Strategy::Local;
  unsigned nativeSize = 32, defaultSize = 0;
  bool manifest = false, haveStrategy = false, images = true, declarations = false;
  std::string file, optionsFile, bridge;
  isg::RewriteResult::Form moduleOutput = isg::RewriteResult::Form::Bitcode;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* v) {
      if (i + 1 >= argc) fail(a + " needs a value");
      *v = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--strategy") {
      value(&v);
      if (!isg::parseStrategy(v, &strategy)) fail("--strategy '" + v + "' is none of " + strategyNames());
      haveStrategy = true;
    } else if (a == "--sub-group-size") {
      value(&v);
      defaultSize = number(a, v);
    } else if (a == "--native-size") {
      value(&v);
      nativeSize = number(a, v);
    } else if (a == "--fp16") {
      in.traits.fp16 = true;
    } else if (a == "--fp64") {
      in.traits.fp64 = true;
    } else if (a == "--no-images") {
      images = false;
    } else if (a == "--pack-work-groups") {
      in.packWorkGroups = true;
    } else if (a == "--launch-variant") {
      value(&v);
      std::istringstream dims(v);
      std::string d;
      for (std::size_t i = 0; i < 3; ++i) {
        if (!std::getline(dims, d, ',') || d.empty() || d.find_first_not_of("0123456789") != std::string::npos ||
            d.size() > 9 || std::stoul(d) == 0)
          fail("--launch-variant '" + v + "' is not a work-group size as X,Y,Z (each at least 1)");
        in.assumedWorkGroupSize[i] = std::stoul(d);
      }
      if (std::getline(dims, d)) fail("--launch-variant '" + v + "' is not a work-group size as X,Y,Z (each at least 1)");
    } else if (a == "--nv-sm") {
      value(&v);
      in.traits.nvidiaComputeCapability = number(a, v);
    } else if (a == "--device-version") {
      value(&v);
      in.traits.deviceOpenclVersion = number(a, v);
      if (in.traits.deviceOpenclVersion < 100 || in.traits.deviceOpenclVersion > 999)
        fail("--device-version '" + v + "' is not an OpenCL version as NNN (120, 200, 300)");
    } else if (a == "--device-extensions" || a == "--device-features") {
      value(&v);
      std::istringstream names(v);
      auto& list = a == "--device-extensions" ? in.traits.deviceExtensions : in.traits.openclCFeatures;
      for (std::string n; names >> n;) list.push_back(n);
      // A device that lists the work-group collectives has them (the layer asks the same).
      for (const std::string& n : list)
        if (n == "__opencl_c_work_group_collective_functions") in.traits.workGroupCollectives = true;
    } else if (a == "--driver-options") {
      value(&optionsFile);
    } else if (a == "--module-output") {
      value(&v);
      if (v != "bitcode" && v != "spirv" && v != "ptx") fail("--module-output '" + v + "' is none of bitcode|spirv|ptx");
      moduleOutput = v == "spirv" ? isg::RewriteResult::Form::Spirv
                     : v == "ptx" ? isg::RewriteResult::Form::Ptx
                                  : isg::RewriteResult::Form::Bitcode;
    } else if (a == "--spirv-bridge") {
      value(&bridge);
    } else if (a == "--declarations") {
      declarations = true;
    } else if (a == "--manifest") {
      manifest = true;
    } else if (a == "--header") {
      std::size_t eq;
      value(&v);
      if ((eq = v.find('=')) == std::string::npos || eq == 0) fail("--header '" + v + "' is not NAME=PATH");
      isg::SourceFile h{v.substr(0, eq), {}};
      if (!readFile(v.substr(eq + 1), &h.text)) {
        std::cerr << "isg-rewrite: cannot read " << v.substr(eq + 1) << "\n";
        return 2;
      }
      in.headers.push_back(std::move(h));
    } else if (a == "--help" || a == "-h") {
      return usage(std::cout);
    } else if (a == "--version") {
      std::cout << "isg-rewrite " ISG_VERSION "\n";
      return 0;
    } else if (a == "--" && i == argc - 2) {
      file = argv[++i];
    } else if (a.rfind("--", 0) == 0) {
      fail("unknown option '" + a + "'");
    } else if (i == argc - 1) {
      file = a;
    } else {
      in.options += (in.options.empty() ? "" : " ") + quoteOption(a);
    }
  }
  if (declarations && haveStrategy) {
    isg::applyStrategyDefaults(strategy, nativeSize, &in.traits);
    in.traits.images = images;
    std::cout << isg::builtinDeclarations(in.traits);
    return 0;
  }
  if (!haveStrategy) fail(declarations ? "--declarations needs --strategy" : "no --strategy given");
  if (file.empty() || file[0] == '-') fail("no input file (the last argument is the program's file)");
  if (!readFile(file, &in.source)) {
    std::cerr << "isg-rewrite: cannot read " << file << "\n";
    return 2;
  }
  isg::applyStrategyDefaults(strategy, nativeSize, &in.traits);
  in.traits.images = images;
  if (defaultSize) {
    const auto& sizes = in.traits.supportedSubGroupSizes;
    if (std::find(sizes.begin(), sizes.end(), defaultSize) == sizes.end()) {
      std::cerr << "isg-rewrite: sub-group size " << defaultSize << " is not one strategy "
                << isg::strategyName(strategy) << " supports\n";
      return 2;
    }
    in.traits.defaultSubGroupSize = defaultSize;
  }

  // A SPIR-V module (by its magic number) goes through the SPIR-V front end.
  const bool module = in.source.size() >= 4 && (in.source.compare(0, 4, "\x03\x02\x23\x07") == 0 ||
                                                in.source.compare(0, 4, "\x07\x23\x02\x03") == 0);
  isg::RewriteResult r;
  if (module) {
    isg::ModuleInput m;
    m.spirv = in.source;
    m.options = in.options;
    m.traits = in.traits;
    m.output = moduleOutput;
    m.spirvVersion = isg::kSpirvReadMax;
    m.bridgePath = bridge;
    r = isg::rewriteModule(m);
  } else if (moduleOutput == isg::RewriteResult::Form::Ptx) {
    r = isg::compileForNvidia(in);  // the layer's OpenCL C front end for NVIDIA
  } else {
    r = isg::rewriteProgram(in);
  }
  if (!optionsFile.empty()) {
    std::ofstream o(optionsFile);
    o << (r.status == isg::RewriteResult::Status::Rewritten ? r.options : in.options) << "\n";
  }
  if (manifest) {
    std::cout << isg::manifestToJson(r);
  } else if (r.status == isg::RewriteResult::Status::Rewritten) {
    if (r.form == isg::RewriteResult::Form::Ptx) std::cout << r.binary.c_str();  // without its NUL
    else std::cout << (module ? r.binary : r.source);
  } else if (r.status == isg::RewriteResult::Status::PassThrough) {
    std::cout << in.source;
  }
  // Errors, and for a program that builds its warnings and notes.
  std::cerr << namingFile(r.log, file);
  if (r.status == isg::RewriteResult::Status::Error) return 1;
  return 0;
}
