// SPDX-License-Identifier: MIT
// rewriteProgram and the other entry points of isg/rewriter.h: the pre-scan (prescan.h), the
// analysis (analysis.h), the khr fallback, the driver's text (compose.h) and the result cache
// (result_cache.h). Clang is only reached through analysis.h.
#include "isg/rewriter.h"
#include "isg/rewriter_library.h"
#include "isg/build_options.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "source/analysis.h"
#include "source/compose.h"
#include "common/kernel_facts.h"
#include "common/prescan.h"
#include "source/token_scan.h"
#include "ptx/ptx_backend.h"
#include "common/result_cache.h"
#include "common/table.h"

namespace isg {

namespace detail {

RewriteResult errorResult(std::string log) {
  RewriteResult r;
  r.status = RewriteResult::Status::Error;
  r.log = std::move(log);
  if (!r.log.empty() && r.log.back() != '\n') r.log += '\n';
  return r;
}

// Why the khr strategy cannot serve the program, or "" when it can. A kernel that calls
// builtins needs its Intel sub-groups to be whole aligned runs of a native sub-group: S must
// divide the native size N (0: unknown, e.g. isg-rewrite without a device; assumed to fit).
// One kernel that does not fit sends the whole program to local: helpers that take the
// sub-group context are shared between kernels, and one program has one library.
std::string khrMisfit(const DeviceTraits& traits, const std::vector<KernelManifest>& kernels) {
  const unsigned n = traits.nativeSubGroupSize;
  if (traits.strategy != Strategy::Khr || n == 0) return {};
  for (const KernelManifest& k : kernels) {
    if (k.families.empty()) continue;  // calls no builtin: any S runs
    const unsigned s = k.subGroupSize;
    if (s == 0 || s > n || n % s != 0)
      return "note: kernel '" + k.name + "' needs sub-group size " + std::to_string(s) +
             ", which does not divide the device's native sub-group size " + std::to_string(n) +
             "; the program uses the local sub-group strategy instead of khr (sub-group builtins "
             "must then be reached in work-group uniform control flow)";
  }
  return {};
}

}  // namespace detail

namespace {

// Whether the build turns the driver's warnings into errors.
bool warningsFail(const std::string& options) {
  const std::vector<std::string> words = splitBuildOptions(options);
  return std::find(words.begin(), words.end(), "-Werror") != words.end();
}

// The analysis of `*in`. Where the walk of Intel's execution model had to leave a function as it
// was (an exchange, or the statement around it, spelled by a macro), the same walk over the
// program after its preprocessor (expandMainText: same lines, the macros of the main text
// expanded) may lower it: then that text is the program's (*in) from here on. So too where block
// IO a macro spells could take member 0's pointer there (Analysis::firstMemberInMacro), if the
// text after the preprocessor gives it every such call. Programs the walk lowers or leaves alone
// as written keep their text byte for byte.
detail::Analysis analyzeForExecutionModel(RewriteInput* in) {
  detail::Analysis a = detail::analyzeProgram(*in);
  if ((!a.predicationRefused && !a.firstMemberInMacro) || !a.intelInternal.empty()) return a;
  RewriteInput expanded = *in;
  if (!detail::expandMainText(*in, &expanded.source) || expanded.source == in->source) return a;
  detail::Analysis b = detail::analyzeProgram(expanded);
  if (!b.ok || b.predicationRefused || (!a.predicationRefused && b.firstMemberInMacro)) return a;
  *in = std::move(expanded);
  return b;
}

RewriteResult rewriteUncached(const RewriteInput& input, std::vector<SourceFile>* disk) {
  RewriteInput program = input;
  detail::Analysis a = analyzeForExecutionModel(&program);
  *disk = a.diskFiles;
  if (!a.ok) return detail::errorResult(a.log);
  // The khr fallback is decided here, per program, because only the analysis knows every
  // kernel's S; the second parse happens only for programs that fall back.
  std::string note = detail::khrMisfit(input.traits, a.kernels);
  RewriteInput fallback;
  if (!note.empty()) {
    fallback = input;
    fallback.traits.strategy = Strategy::Local;
    fallback.traits.khrTestDouble = false;
    a = analyzeForExecutionModel(&fallback);
    *disk = a.diskFiles;
    if (!a.ok) return detail::errorResult(a.log);
  }
  const RewriteInput& in = note.empty() ? program : fallback;

  std::vector<detail::FileEdit> edits = std::move(a.edits);
  std::size_t before = edits.size();
  detail::blankExtensionPragmas("<source>", in.source, edits);
  for (const SourceFile& h : in.headers) detail::blankExtensionPragmas(h.name, h.text, edits);
  // Lines in sections the preprocessor skipped are blanked too (harmless) but make no rewrite:
  // CLBlast keeps its cl_intel_subgroups pragma under #if for devices it gives no shuffles.
  bool blanked = false;
  for (std::size_t i = before; i < edits.size() && !blanked; ++i)
    for (const auto& [file, offset] : a.activeExtensionPragmas)
      blanked |= file == edits[i].file && offset >= edits[i].offset && offset < edits[i].offset + edits[i].length;
  // A program whose only Intel feature is the extension's pragma goes to the driver as written
  // (the driver warns about an extension it does not know), unless that warning would fail the
  // build (-Werror, which oneDNN passes): then only its pragma lines are blanked, with neither
  // the library nor the extension's macros, so the driver compiles what it would alone.
  const bool pragmaOnly = !a.usesSubGroups && a.intelInternal.empty();
  if (pragmaOnly && (!blanked || !warningsFail(in.options))) return RewriteResult{};  // PassThrough

  RewriteResult r;
  r.status = RewriteResult::Status::Rewritten;
  if (pragmaOnly) edits.erase(edits.begin(), edits.begin() + static_cast<std::ptrdiff_t>(before));
  detail::Composer composer(in, a, edits);
  if (!composer.ok()) return detail::errorResult(composer.error());
  if (pragmaOnly) {
    r.source = composer.compose("<source>", "<source>", 1, &r.lineMap);
  } else {
    std::string prelude = detail::buildPrelude(in.traits, a);
    unsigned preludeLines = detail::countLines(prelude) + 1;  // + the separator line
    r.source = prelude + "\n" + composer.compose("<source>", "<source>", preludeLines + 1, &r.lineMap);
  }
  for (const SourceFile& h : in.headers)
    r.headers.push_back(SourceFile{h.name, composer.compose(h.name, h.name, 1, &r.lineMap)});
  r.options = in.options;
  std::string macros = pragmaOnly ? std::string() : extensionMacroOptions(in.traits);
  if (!r.options.empty() && !macros.empty()) r.options += ' ';
  r.options += macros;
  if (std::string fix = driverFeatureOptions(in.traits, in.options); !pragmaOnly && !fix.empty()) r.options += " " + fix;
  r.kernels = std::move(a.kernels);
  r.contextFunctions = std::move(a.contextFunctions);
  r.externalFunctions = std::move(a.externalFunctions);
  r.strategy = in.traits.strategy;
  if (!note.empty()) r.log = note + "\n";
  r.log += a.warnings;
  return r;
}

}  // namespace

bool mayUseHalf(const RewriteInput& input) {
  return detail::programTextMatches(input, detail::textMayUseHalf) && preprocessedCodeUsesHalf(input);
}

bool preprocessedCodeUsesHalf(const RewriteInput& input) {
  // The text names half (mayUseHalf); whether the code the preprocessor keeps does, with cl_khr_fp16 defined
  // as the front end defines it (CLBlast's programs declare half types under an #if of their
  // precision, and its single-precision ones need NVIDIA's compiler, not the front end).
  RewriteInput withFp16 = input;
  withFp16.traits.fp16 = true;
  withFp16.traits.deviceExtensions.push_back("cl_khr_fp16");
  return detail::activeIdentifierMatches(withFp16, detail::namesHalf);
}

namespace {

// `work()`, with whatever it throws as a failed build whose log names `what`.
template <class Work>
RewriteResult neverThrows(const char* what, Work&& work) {
  try {
    return work();
  } catch (const std::exception& e) {
    return detail::errorResult(std::string("error: ") + what + " failed: " + e.what());
  } catch (...) {
    return detail::errorResult(std::string("error: ") + what + " failed");
  }
}

}  // namespace

RewriteResult rewriteProgram(const RewriteInput& input) {
  return neverThrows("the sub-group rewriter", [&] {
    if (input.traits.strategy == Strategy::Native || !mayNeedRewrite(input)) return RewriteResult{};
    detail::CacheKey key = detail::cacheKey(input);
    RewriteResult result;
    if (detail::cachedResult(key, &result)) return result;
    std::vector<SourceFile> disk;
    result = rewriteUncached(input, &disk);
    result.diskFiles = std::move(disk);
    detail::cacheResult(key, result);
    return result;
  });
}

namespace {

RewriteInput frontEndInput(const RewriteInput& input) {
  RewriteInput in = input;
  in.traits = frontEndTraits(input.traits);
  return in;
}

// What the front end compiles of `in` after its rewrite `rewritten` (Rewritten or PassThrough).
RewriteInput rewrittenInput(const RewriteInput& in, const RewriteResult& rewritten) {
  RewriteInput program = in;
  if (rewritten.status == RewriteResult::Status::Rewritten) {
    program.source = rewritten.source;
    program.headers = rewritten.headers;
    program.options = rewritten.options;
  }
  return program;
}

// A front-end build log `log` of `in` in the user's lines.
std::string usersLog(const std::string& log, const RewriteResult& rewritten) {
  return rewritten.status == RewriteResult::Status::Rewritten ? mapBuildLog(log, rewritten) : log;
}

// Kernels of `described` (Clang's description) that the rewrite has no manifest for: those it
// left alone keep Clang's argument information, as PTX has none for the driver to answer with.
void addDescribedKernels(std::vector<KernelManifest>& described, std::vector<KernelManifest>* kernels) {
  for (KernelManifest& k : described)
    if (std::none_of(kernels->begin(), kernels->end(), [&](const KernelManifest& r) { return r.name == k.name; }))
      kernels->push_back(std::move(k));
}

}  // namespace

namespace {

// The front end's compile of `input`, cached under `tag`: the rewrite, then `compile`, which
// makes the result from the rewritten program; the user's disk files go with it into the cache.
template <class Compile>
RewriteResult frontEndCompile(const RewriteInput& input, const char* tag, Compile&& compile) {
  return neverThrows("the layer's OpenCL C front end", [&] {
    const RewriteInput in = frontEndInput(input);
    detail::CacheKey key = detail::cacheKey(in, tag);
    RewriteResult result;
    if (detail::cachedResult(key, &result)) return result;
    const RewriteResult rewritten = rewriteProgram(in);
    if (rewritten.status == RewriteResult::Status::Error) return rewritten;
    result = compile(in, rewritten);
    result.diskFiles = rewritten.diskFiles;
    detail::cacheResult(key, result);
    return result;
  });
}

// A result the rewriter passed through (no edits) is built with the input's own options.
void keepOptionsOfUntouched(const RewriteInput& in, const RewriteResult& rewritten, RewriteResult* result) {
  if (rewritten.status == RewriteResult::Status::Rewritten) return;
  result->strategy = in.traits.strategy;
  result->options = in.options;
}

}  // namespace

RewriteResult compileForNvidia(const RewriteInput& input) {
  return frontEndCompile(input, "ptx", [](const RewriteInput& in, const RewriteResult& rewritten) {
    std::string ptx, log;
    std::vector<KernelManifest> described;
    detail::ShapedKernels shaped;
    // Clang's lines are the rewritten text's; the user's are wanted.
    if (!detail::sourceToPtx(rewrittenInput(in, rewritten), in.packWorkGroups ? &rewritten.kernels : nullptr, &ptx,
                             &described, &shaped, &log))
      return detail::errorResult(usersLog(log, rewritten));
    RewriteResult result = rewritten;
    ptx.push_back('\0');  // NVIDIA's clCreateProgramWithBinary reads PTX as a C string
    result.status = RewriteResult::Status::Rewritten;
    result.form = RewriteResult::Form::Ptx;
    result.binary = std::move(ptx);
    addDescribedKernels(described, &result.kernels);
    detail::recordLaunchShape(shaped, &result.kernels);
    keepOptionsOfUntouched(in, rewritten, &result);
    return result;
  });
}

RewriteResult compileObjectForNvidia(const RewriteInput& input) {
  return frontEndCompile(input, "ptx-object", [](const RewriteInput& in, const RewriteResult& rewritten) {
    std::string log;
    if (!detail::compilesForPtx(rewrittenInput(in, rewritten), &log))
      return detail::errorResult(usersLog(log, rewritten));
    RewriteResult result = rewritten;
    keepOptionsOfUntouched(in, rewritten, &result);
    result.status = RewriteResult::Status::Rewritten;
    result.form = RewriteResult::Form::Object;
    return result;
  });
}

RewriteResult linkForNvidia(const std::vector<RewriteInput>& objects, const std::string& options) {
  return neverThrows("the layer's OpenCL C front end", [&] {
    RewriteResult result;
    result.status = RewriteResult::Status::Rewritten;
    result.form = RewriteResult::Form::Ptx;
    result.options = options;
    std::vector<RewriteInput> programs;
    std::vector<RewriteResult> rewrites;
    bool anyEdited = false;
    for (const RewriteInput& object : objects) {
      const RewriteInput in = frontEndInput(object);
      RewriteResult rewritten = rewriteProgram(in);
      if (rewritten.status == RewriteResult::Status::Error) return rewritten;
      if (rewritten.status == RewriteResult::Status::Rewritten && !anyEdited) {
        anyEdited = true;
        result.strategy = rewritten.strategy;
      } else if (!anyEdited) {
        result.strategy = in.traits.strategy;
      }
      result.kernels.insert(result.kernels.end(), rewritten.kernels.begin(), rewritten.kernels.end());
      programs.push_back(rewrittenInput(in, rewritten));
      rewrites.push_back(std::move(rewritten));
    }
    std::string ptx, log;
    std::vector<KernelManifest> described;
    detail::ShapedKernels shaped;
    std::size_t failed = 0;
    const bool pack = !objects.empty() && objects.front().packWorkGroups;
    if (!detail::objectsToPtx(programs, options, pack ? &result.kernels : nullptr, &ptx, &described, &shaped,
                              &failed, &log))
      return detail::errorResult(failed < rewrites.size() ? usersLog(log, rewrites[failed]) : log);
    ptx.push_back('\0');
    result.binary = std::move(ptx);
    addDescribedKernels(described, &result.kernels);
    detail::recordLaunchShape(shaped, &result.kernels);
    return result;
  });
}

}  // namespace isg
