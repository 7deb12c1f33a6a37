// SPDX-License-Identifier: MIT
// Replays inputs of a fuzz target without libFuzzer, for CTest: the committed corpus and every
// reproducer run on each build (and under the sanitizer builds), with the target's own checks.
// Linked with api_fuzzer.cpp (through the layer on the default device) or rewriter_fuzzer.cpp
// (the rewriter in memory). Arguments: files, or directories whose files are all run (in name
// order).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);
// Optional, as libFuzzer has it: weak, called where the target defines it.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
// Each target's summary of what its inputs reached, into `line`, and whether they reached what
// the target exists for: a corpus that reaches nothing would pass while testing nothing.
extern "C" bool isgFuzzReached(char* line, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(p))
        if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
          files.push_back(entry.path());  // dot files keep an empty directory in git
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (std::filesystem::is_regular_file(p)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "%s: %s: no such file or directory\n", argv[0], argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s\n", path.c_str());  // the last name printed is the one that failed
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  char line[256] = "";
  const bool reached = isgFuzzReached(line, sizeof line);
  std::printf("%zu inputs ran without a finding: %s\n", inputs.size(), line);
  return reached ? 0 : 1;
}
