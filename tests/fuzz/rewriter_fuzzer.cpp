// SPDX-License-Identifier: MIT
// libFuzzer target: isg::rewriteProgram promises never to crash on any program text (the layer
// runs it inside the application's process), and mapBuildLog reads whatever a driver prints.
//
// Input layout, chosen so that a plain .cl file is already a useful seed:
//   byte 0      option variant (see kVariants) and device traits (bits below)
//   bytes 1..   the program source; if it contains a NUL byte, the text after the first NUL is
//               a clCompileProgram header named "fuzz.h" (so `#include "fuzz.h"` is exercised)
// The same bytes then serve as a driver build log for mapBuildLog, against both the real result
// and a synthetic rewritten result, since most mutated programs fail to parse and would
// otherwise never reach the log mapper.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "isg/rewriter.h"

namespace {

// Build options applications pass in practice: sizes and types through -D (including a
// function-like macro and token pasting material), -cl-* options Clang knows, options it does
// not (dropped for the parse), quoting, and -U. No -I: findings should not depend on the
// machine's files (run.sh runs in an empty directory for the same reason).
const char* const kVariants[] = {
    "",
    "-cl-std=CL1.2 -cl-mad-enable -cl-fast-relaxed-math",
    "-DSIMD=16 -DTYPE=float -DVEC=4 -DCAT(a,b)=a##b",
    "-cl-std=CL2.0 -D SUB_GROUP_SIZE=8 -DUSE_SUBGROUP_SHUFFLING=1 -Werror",
    "-DSHUFFLE=intel_sub_group_shuffle -UNDEBUG -cl-kernel-arg-info",
    "-D \"MSG=a b\" -DX='1' -cl-unknown-option --weird -D",
    "-cl-std=CL3.0 \"-DBLOCK_READ(p)=intel_sub_group_block_read((const global uint*)(p))\"",
    "-w -g -cl-opt-disable -DINPUT0_TYPE=half -DOUTPUT_TYPE=float -DFILTER_SIZE_X=3",
};
constexpr std::size_t kNumVariants = sizeof(kVariants) / sizeof(kVariants[0]);

const unsigned kSubGroupSizes[] = {8, 16, 32, 13};  // 13: not supported -> error path

// Promises of rewriter.h that the layer relies on; a broken one is reported like a crash.
void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "rewriter invariant violated: %s\n", what);
  std::abort();
}

std::size_t lines(const std::string& s) {
  return std::size_t(std::count(s.begin(), s.end(), '\n'));
}

void checkResult(const isg::RewriteInput& in, const isg::RewriteResult& r) {
  using Status = isg::RewriteResult::Status;
  if (r.status == Status::PassThrough) {
    require(r.source.empty() && r.kernels.empty(), "pass-through carries no program");
    return;
  }
  if (r.status == Status::Error) {
    require(!r.log.empty(), "an error comes with a log");
    return;
  }
  // The line map is only correct if the user's text kept every line where it was.
  require(!r.lineMap.empty() && r.lineMap[0].rewrittenFile == "<source>", "line map of <source>");
  require(lines(r.source) == r.lineMap[0].rewrittenFirst - 1 + lines(in.source),
          "the rewritten source keeps the user's line count after the prelude");
  require(r.headers.size() == in.headers.size(), "one rewritten header per input header");
  for (std::size_t i = 0; i < r.headers.size(); ++i)
    require(r.headers[i].name == in.headers[i].name &&
                lines(r.headers[i].text) == lines(in.headers[i].text),
            "headers keep their names and line counts");
  for (const isg::KernelManifest& k : r.kernels) {
    require(!k.name.empty() && k.subGroupSize > 0, "kernels have a name and a sub-group size");
    for (std::size_t i = 0; i < k.hiddenArgs.size(); ++i)
      require(k.hiddenArgs[i].index == k.numUserArgs + i, "hidden arguments follow the user's");
    require(k.hiddenArgs.empty() || k.scratchBytesPerItem == 0 ||
                (k.scratchBytesPerItem & (k.scratchBytesPerItem - 1)) == 0,
            "scratch slots are powers of two");
  }
}

// What the inputs reached, for the replay's summary (replay_main.cpp).
unsigned long gRewritten = 0, gRefused = 0;

}  // namespace

// A corpus that no longer rewrites anything tests nothing of the rewrite.
extern "C" bool isgFuzzReached(char* line, std::size_t size) {
  std::snprintf(line, size, "%lu rewritten, %lu refused with a log", gRewritten, gRefused);
  return gRewritten > 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);

  isg::RewriteInput in;
  in.options = kVariants[sel % kNumVariants];
  std::size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    in.headers.push_back(isg::SourceFile{"fuzz.h", text.substr(nul + 1)});
    in.source = text.substr(0, nul);
  } else {
    in.source = text;
  }
  in.traits.strategy = isg::Strategy::Local;  // the strategy every device can take
  in.traits.defaultSubGroupSize = kSubGroupSizes[(sel >> 3) & 3];
  in.traits.supportedSubGroupSizes = {8, 16, 32};
  in.traits.fp16 = (sel & 0x20) != 0;
  in.traits.fp64 = (sel & 0x40) != 0;
  in.traits.openclCVersion = (sel & 0x80) ? 300 : 120;

  (void)isg::mayNeedRewrite(in);
  isg::RewriteResult r = isg::rewriteProgram(in);
  checkResult(in, r);
  gRewritten += r.status == isg::RewriteResult::Status::Rewritten;
  gRefused += r.status == isg::RewriteResult::Status::Error;
  // nvidia-ptx's own analyses (which calls a whole warp reaches together; S from the launch)
  // on the same input: the rewrite only, PTX needs the front end.
  if (r.status == isg::RewriteResult::Status::Rewritten) {
    isg::RewriteInput nv = in;
    isg::applyStrategyDefaults(isg::Strategy::NvidiaPtx, 32, &nv.traits);
    nv.traits.nvidiaComputeCapability = 90;
    nv.traits.subGroupSizeFromLaunch = (sel & 1) != 0;
    checkResult(nv, isg::rewriteProgram(nv));
  }
  (void)isg::manifestToJson(r);
  (void)isg::mapBuildLog(text, r);

  // A rewritten result whose line map starts somewhere the bytes choose, with a header, so
  // every branch of the log mapper (prelude, user lines, headers, include chains) is reachable.
  isg::RewriteResult fake;
  fake.status = isg::RewriteResult::Status::Rewritten;
  fake.headers.push_back(isg::SourceFile{"fuzz.h", ""});
  unsigned first = 1 + (size > 1 ? data[1] % 64 : 0);
  fake.lineMap.push_back(isg::LineMapEntry{"<source>", first, 1000, "<source>", 1});
  fake.lineMap.push_back(isg::LineMapEntry{"fuzz.h", 1, 1000, "fuzz.h", 1});
  (void)isg::mapBuildLog(text, fake);
  return 0;
}
