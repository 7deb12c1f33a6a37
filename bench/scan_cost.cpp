// SPDX-License-Identifier: MIT
// The layer's text scan alone (issue 35: a program with no Intel builtin should cost its build
// no more than this scan): isg::mayNeedRewrite, which every source build runs, and
// isg::mayUseHalf, which builds for NVIDIA devices add (a preprocessor run where the text names
// half), on bench_build's generated programs
// (common/generated_program.h), in this process: no OpenCL, no driver. Beside bench_build's
// layer - direct difference for the plain program, it says how much of that difference the
// scan explains. Linked with the rewriter, so not staged for the GPU machine (its CPU scans the
// same text at its own speed; run it there from a build if needed).
#include <string>
#include <vector>

#include "common/generated_program.h"
#include "common/report.h"
#include "isg/rewriter.h"

using namespace isgb;

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("scan", "the layer's text scan of a program alone (no driver)", "MB/s", opt);
    r.variantOrder({"scan"});
    const int blocks = opt.smoke ? kSmokeBlocks : kBlocks, nrep = reps(opt, 21), warm = warmups(opt, 3);
    const int calls = opt.smoke ? 5 : 200;  // scans per repetition: one is a few tens of microseconds
    r.config("reps", nrep);
    r.config("scans_per_rep", calls);
    for (bool intel : {false, true}) {
      isg::RewriteInput in;
      in.source = generatedProgram(intel, blocks);
      in.options = "-D ISG_BENCH_NONCE=1000000";
      const std::string which = intel ? "intel" : "plain";
      r.info(which + " program", std::to_string(in.source.size()) + " bytes, " + std::to_string(countLines(in.source)) +
                                     " lines");
      struct Scan {
        std::string name;
        bool (*scan)(const isg::RewriteInput&);
        bool expected;
      };
      // The plain program names neither an Intel builtin nor half: each scan reads all of it.
      for (const Scan& s : {Scan{"mayNeedRewrite/" + which, isg::mayNeedRewrite, intel},
                            Scan{"mayUseHalf/" + which, isg::mayUseHalf, false}}) {
        if (!r.wanted(s.name)) continue;
        std::vector<double> ms;
        bool answers = true;
        for (int rep = 0; rep < warm + nrep; ++rep) {
          const double t0 = nowMs();
          for (int i = 0; i < calls; ++i) answers &= s.scan(in) == s.expected;
          const double t1 = nowMs();
          if (rep >= warm) ms.push_back((t1 - t0) / calls);
        }
        r.add(s.name, "scan", ms, double(in.source.size()), 1e6, answers ? 1 : 0);
      }
    }
    // CLBlast's shape: the plain program naming half only under an #if that is false. The text
    // scan says maybe, and mayUseHalf preprocesses the whole program to say no.
    isg::RewriteInput named;
    named.source = "#if PRECISION == 16\ntypedef half real;\n#endif\n" + generatedProgram(false, blocks);
    named.options = "-D ISG_BENCH_NONCE=1000000 -D PRECISION=32";
    const std::string name = "mayUseHalf/plain-naming-half";
    if (r.wanted(name)) {
      std::vector<double> ms;
      bool answers = true;
      const int few = opt.smoke ? 2 : 10;  // each is a preprocessor run
      for (int rep = 0; rep < warm + nrep; ++rep) {
        const double t0 = nowMs();
        for (int i = 0; i < few; ++i) answers &= !isg::mayUseHalf(named);
        const double t1 = nowMs();
        if (rep >= warm) ms.push_back((t1 - t0) / few);
      }
      r.add(name, "scan", ms, double(named.source.size()), 1e6, answers ? 1 : 0);
    }
    return r.finish();
  });
}
