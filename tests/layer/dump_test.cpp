// SPDX-License-Identifier: MIT
// ISG_DUMP_DIR: rewritten programs are dumped (original, rewritten, manifest), programs that
// pass through are not. The directory is set before the process's first OpenCL call, which is
// when the loader initialises the layer and the layer reads its controls.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

namespace fs = std::filesystem;

fs::path& dumpDir() {
  static fs::path dir;
  return dir;
}

class DumpDirEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "isg-dump-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dumpDir() = pattern;
    setenv("ISG_DUMP_DIR", pattern.c_str(), 1);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dumpDir(), ec);
  }
};
::testing::Environment* const kDumpEnvironment =
    ::testing::AddGlobalTestEnvironment(new DumpDirEnvironment);

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Dumped files whose text contains `marker`.
std::vector<fs::path> filesMentioning(const std::string& marker) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dumpDir()))
    if (readFile(entry.path()).find(marker) != std::string::npos) found.push_back(entry.path());
  return found;
}

TEST(Dump, PassThroughProgramIsNotDumped) {
  ISG_REQUIRE_ENV();
  const std::string source =
      "kernel void plain_dump_marker_7f3a(global int* out) { out[get_global_id(0)] = 1; }\n";
  cl_program p = isgtest::buildProgram(source);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(filesMentioning("plain_dump_marker_7f3a").empty());
  clReleaseProgram(p);
}

TEST(Dump, RewrittenProgramIsDumped) {
  ISG_REQUIRE_ENV();
  std::string source = isgtest::rotateKernelSource("") + "// rewritten_dump_marker_91c2\n";
  std::string log;
  cl_program p = isgtest::buildProgram(source, "", &log);
  ASSERT_NE(p, nullptr) << log;
  std::vector<fs::path> originals;
  for (const fs::path& f : filesMentioning("rewritten_dump_marker_91c2"))
    if (f.string().size() > 12 && f.string().rfind(".original.cl") == f.string().size() - 12)
      originals.push_back(f);
  ASSERT_EQ(originals.size(), 1u);
  EXPECT_EQ(readFile(originals[0]), source);
  std::string key = originals[0].filename().string();
  key = key.substr(0, key.find('.'));
  EXPECT_TRUE(fs::exists(dumpDir() / (key + ".rewritten.cl")));
  EXPECT_TRUE(fs::exists(dumpDir() / (key + ".manifest.json")));
  EXPECT_NE(readFile(dumpDir() / (key + ".manifest.json")).find("rotate_lanes"), std::string::npos);
  clReleaseProgram(p);
}

}  // namespace
