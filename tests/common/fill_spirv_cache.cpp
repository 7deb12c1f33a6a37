// SPDX-License-Identifier: MIT
// isg_fill_spirv_cache DIR: compiles every program a test run recorded in DIR (KEY.cl and
// KEY.options, cl_harness.h ISG_TEST_SPIRV_CACHE) to KEY.spv, exactly as the harness compiles
// programs where clang-15 is at hand. Exit status: the number of programs that failed (max 100).
#include <dirent.h>

#include <iostream>

#include "cl_harness.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: isg_fill_spirv_cache DIR\n";
    return 2;
  }
  setenv("ISG_TEST_SPIRV_CACHE", argv[1], 1);
  DIR* dir = opendir(argv[1]);
  if (!dir) {
    std::cerr << "isg_fill_spirv_cache: cannot open " << argv[1] << "\n";
    return 2;
  }
  int failed = 0, compiled = 0;
  for (dirent* e; (e = readdir(dir));) {
    std::string name = e->d_name;
    if (name.size() < 4 || name.compare(name.size() - 3, 3, ".cl") != 0) continue;
    const std::string base = std::string(argv[1]) + "/" + name.substr(0, name.size() - 3);
    std::string src, options, module, log;
    if (!isgtest::readWholeFile(base + ".cl", &src) || !isgtest::readWholeFile(base + ".options", &options)) continue;
    if (isgtest::compileToSpirv(src, options, &module, &log)) {
      ++compiled;
    } else {
      ++failed;
      std::cerr << base << ".cl: " << log << "\n";
    }
  }
  closedir(dir);
  std::cout << compiled << " compiled, " << failed << " failed\n";
  return failed > 100 ? 100 : failed;
}
