// SPDX-License-Identifier: MIT
// The in-process Clang every path of the rewriter goes through: the program and its headers as
// in-memory files, the driver command line for a device, the diagnostics users get (with the
// names they gave their files), on a thread with the stack Clang needs. The source analysis
// (analysis.cpp) parses with it; the SPIR-V and PTX paths compile the layer's own OpenCL C to
// IR with it (compileToModule). Clang's types stay behind this header.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>

#include "isg/rewriter.h"
#include "common/prescan.h"

namespace clang {
class FrontendAction;
}  // namespace clang

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace isg::detail {

// Build options split into the arguments the Clang driver understands and may see (-D, -U, -I,
// the -cl-* options it knows); vendor options are dropped here but stay in the driver's options.
std::vector<std::string> clangArgsFromOptions(const std::string& options);

// Build-log errors for the words of `options` no OpenCL C compiler takes: neither Clang's
// driver knows them nor are they NVIDIA's (-cl-nv-*) or Intel's (-cl-intel-*) own. "" when none.
// A driver's compiler rejects such options; the layer's front end does too.
std::string unknownBuildOptions(const std::string& options);

// Compiles a program the rewriter wrote itself (the library and calls into it) to LLVM IR in
// `context`: for spir64 with typed pointers as SPIRV-LLVM-Translator 15 uses them, or for
// nvptx64-nvidia-nvcl (ptx_backend.cpp): with typed pointers (the strategy's library for a SPIR
// module bound for PTX: its inline PTX constraints are NVPTX's) or opaque ones. nullptr (and
// Clang's diagnostics in *log) when it does not compile.
enum class CodegenTarget { Spir, NvptxTyped, Nvptx };
std::unique_ptr<llvm::Module> compileToModule(const RewriteInput& input, llvm::LLVMContext& context,
                                              std::string* log, CodegenTarget target = CodegenTarget::Spir);

// Which virtual paths are the program's own files, and how users know every file by name.
class FileNames {
 public:
  explicit FileNames(const RewriteInput& in);
  const std::string* editable(llvm::StringRef path) const;
  static bool internal(llvm::StringRef path);
  std::string display(llvm::StringRef path) const;
  // Clang prints virtual paths; users must see the names they gave.
  std::string scrub(std::string log) const;
  std::string mainName() const { return "<source>"; }

 private:
  std::map<std::string, std::string> user_;
};

// Runs `action` over `in` on a thread with the deep stack Clang expects (whatever thread the
// application builds programs from); no crash handler is installed, so the process keeps its
// own. False when Clang failed or reported errors; *log has its diagnostics. `codegen`: the
// program is the layer's own, compiled to IR for `target` (else it is parsed for the analysis).
// `internal`: the program's Intel-internal builtins where the caller has them (a parse gives
// each its stand-in); null reads them from the program.
bool runClang(const RewriteInput& in, bool codegen, CodegenTarget target,
              std::unique_ptr<clang::FrontendAction> action, const FileNames& names, std::string* log,
              const IntelInternalBuiltins* internal = nullptr);

}  // namespace isg::detail
