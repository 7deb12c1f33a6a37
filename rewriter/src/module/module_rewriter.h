// SPDX-License-Identifier: MIT
// The module rewriter's shared declarations (private to module/): the rewrite of one SPIR-V
// module's LLVM IR is one object whose steps live in several files, each a job of its own
// (builtin_overloads.cpp, kernel_entries.cpp, module_images.cpp); module_rewriter.cpp drives it.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/Attributes.h>
#include <llvm/IR/Module.h>

#include "common/mangled_names.h"
#include "common/table.h"
#include "isg/rewriter.h"

namespace isg::detail {

// How the demangler spells the parameter the stand-in for read_write images replaces.
constexpr const char* kReadWriteImage2d = "read_write image2d_t";

// One Intel builtin overload the module calls (a declaration the driver's library would
// resolve), and the library function that replaces it.
struct Overload {
  llvm::Function* declaration = nullptr;
  const Builtin* builtin = nullptr;
  detail::MangledFunction signature;
  unsigned exchangeBytes = 0;
  std::string replacement;  // __isg_ir_<n>
  // Buffer block IO that takes the first member's pointer (__ISG_L0_<name>): the twin of the
  // overload its declaration maps to, called where firstMemberPointers says.
  bool firstMember = false;
};

// The rewrite of one module (module_rewriter.cpp's header comment says what it does).
class ModuleRewriter {
 public:
  ModuleRewriter(const ModuleInput& in, const DeviceTraits& traits, llvm::Module& m)
      : in_(in), traits_(traits), m_(m), ctx_(m.getContext()) {}

  // Finds the builtin calls, the functions that need the context and the kernels' manifests.
  // False with result_.log set when the program cannot run on the device.
  bool analyse();

  bool usesSubGroups() const { return usesSubGroups_; }
  // A module that needs no library may still need the read_write image stand-in.
  bool standsInForImages() const { return !readWriteParams_.empty(); }
  bool finishWithoutLibrary(std::string* log) { return readWriteParams_.empty() || finish(log); }
  const std::vector<KernelManifest>& kernels() const { return kernels_; }
  std::string takeLog() { return std::move(result_.log); }

  // The library and the calls into it, as OpenCL C.
  std::string librarySource() const;

  // Links the compiled library in and rewires every call. False with the reason in *log.
  bool transform(std::unique_ptr<llvm::Module> library, std::string* log);

 private:
  // builtin_overloads.cpp
  bool contextualKernel(const std::string& name) const;
  std::set<std::size_t> overloadsReachedFrom(llvm::Function* root) const;

  // module_images.cpp
  void followBlockImages();
  void followOtherImageUses();
  static bool isImage(llvm::Type* t);
  static bool sizeQuery(const llvm::Function& f);
  bool findReadWriteImages();
  bool isReadWriteImage(llvm::Type* t) const;
  static int headerField(const llvm::Function& f);
  bool standInForReadWriteImages(std::string* log);

  // module_divergence.cpp: false (with the log) where an exchange may be reached by only some
  // work-items and ISG_REFUSE_DIVERGENT refuses such modules.
  bool refuseDivergentExchanges();
  // Buffer block IO whose members may pass different pointers: the calls that take the first
  // member's (firstMemberCall_, each to its overload's twin) and the build log's warnings where
  // the strategy keeps each member's, as the source pipeline decides them
  // (AnalysisConsumer::firstMemberPointers).
  void firstMemberPointers();

  // kernel_entries.cpp
  llvm::Function* withContext(llvm::Function* f, llvm::Type* ctxPtr);
  bool retarget(llvm::CallInst* call, llvm::Function* target, llvm::Value* context, std::string* log);
  bool makeEntry(llvm::Function* kernel, llvm::Function* twin, llvm::Function* prologue, std::string* log);
  llvm::Function* replacementKernel(llvm::Function* kernel, const std::vector<llvm::Type*>& params,
                                    const std::vector<llvm::AttributeSet>& appended);
  void extendArgMetadata(llvm::Function* entry, unsigned addressSpace, const char* type,
                         const std::vector<std::string>& names);
  void inlineMarked();
  bool finish(std::string* log);

  const ModuleInput& in_;
  const DeviceTraits& traits_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  std::vector<Overload> overloads_;
  std::map<llvm::Function*, std::size_t> overloadOf_;
  std::map<const llvm::CallBase*, std::size_t> firstMemberCall_;  // call -> its overload's twin
  std::set<llvm::Function*> contextual_;
  std::set<std::pair<llvm::Function*, unsigned>> blockImages_;
  std::set<std::pair<llvm::Function*, unsigned>> otherImageUses_;
  llvm::StructType* readWriteImage_ = nullptr;                       // opencl.image2d_rw_t, stood in for
  std::map<std::string, std::vector<unsigned>> readWriteParams_;      // kernel -> its such parameters
  std::vector<KernelManifest> kernels_;
  bool usesSubGroups_ = false;
  RewriteResult result_;
};

}  // namespace isg::detail
