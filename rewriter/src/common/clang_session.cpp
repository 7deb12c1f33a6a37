// SPDX-License-Identifier: MIT
// The Clang session (clang_session.h): the virtual files a parse sees, the driver command line,
// the diagnostics printer, and the thread the parse or compile runs on.
#include "common/clang_session.h"

#include <algorithm>
#include <utility>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/Stack.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Options.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/Statistic.h>
#include <llvm/IR/Module.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "isg/build_options.h"
#include "common/embedded.h"
#include "common/llvm_compat.h"
#include "common/prescan.h"
#include "common/table.h"

namespace isg::detail {
namespace {

// The program lives in a virtual directory; named headers sit beside the main file so that
// `#include "name"` finds them as clCompileProgram promises.
constexpr llvm::StringLiteral kInputDir = "/isg/input";
constexpr llvm::StringLiteral kMainPath = "/isg/input/program.cl";
constexpr llvm::StringLiteral kInternalDir = "/isg/include/";
constexpr llvm::StringLiteral kDeclsPath = "/isg/include/isg-decls.h";
constexpr llvm::StringLiteral kResourceDir = "/isg/clang";
constexpr llvm::StringLiteral kResourceInclude = "/isg/clang/include/";

std::string normalizePath(llvm::StringRef path) {
  llvm::SmallString<256> p(path);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p.str());
}

std::string headerPath(const std::string& name) {
  if (llvm::sys::path::is_absolute(name)) return normalizePath(name);
  return normalizePath((kInputDir + "/" + name).str());
}

void replaceAll(std::string& text, llvm::StringRef from, llvm::StringRef to) {
  if (from.empty()) return;
  for (std::size_t pos = text.find(from.data(), 0, from.size()); pos != std::string::npos;
       pos = text.find(from.data(), pos + to.size(), from.size()))
    text.replace(pos, from.size(), to.data(), to.size());
}

// Forwards errors (and the notes that belong to them) to a text printer; warnings are the
// driver's business, and notes pointing into our declarations header only list overloads: a
// call of a builtin that no overload matches gets one note with the builtin's signature instead.
class LogConsumer : public clang::DiagnosticConsumer {
 public:
  explicit LogConsumer(llvm::raw_ostream& os)
      : os_(os), opts_(new clang::DiagnosticOptions), printer_(os, opts_.get()) {
    opts_->ShowColors = false;
  }
  void BeginSourceFile(const clang::LangOptions& lo, const clang::Preprocessor* pp) override {
    printer_.BeginSourceFile(lo, pp);
  }
  void EndSourceFile() override { printer_.EndSourceFile(); }
  void finish() override { printer_.finish(); }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    using L = clang::DiagnosticsEngine::Level;
    if (level == L::Note) {
      if (!lastShown_) return;
      if (info.hasSourceManager() && info.getLocation().isValid()) {
        const clang::SourceManager& sm = info.getSourceManager();
        if (FileNames::internal(sm.getFilename(sm.getExpansionLoc(info.getLocation())))) return;
      }
    } else {
      lastShown_ = level >= L::Error;
      if (!lastShown_) return;
    }
    printer_.HandleDiagnostic(level, info);
    if (level >= L::Error) noteSignature(info);
  }

 private:
  void noteSignature(const clang::Diagnostic& info) {
    llvm::SmallString<128> text;
    info.FormatDiagnostic(text);
    const llvm::StringRef prefix = "no matching function for call to '";
    llvm::StringRef message = text.str();
    if (!startsWith(message, prefix)) return;
    const llvm::StringRef name = message.drop_front(prefix.size()).take_until([](char c) { return c == '\''; });
    const Builtin* b = findBuiltin(name);
    if (!b) return;
    std::string types;
    for (const table::TypeEntry& t : b->types) types += (types.empty() ? "" : ", ") + t.type;
    os_ << "note: " << name << " is " << table::signature(b->shape, b->name, b->element, b->width)
        << (types.empty() ? "" : " with T one of " + types) << " (docs/builtins.md)\n";
  }

  llvm::raw_ostream& os_;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> opts_;
  clang::TextDiagnosticPrinter printer_;
  bool lastShown_ = false;
};

}  // namespace

FileNames::FileNames(const RewriteInput& in) {
  user_[std::string(kMainPath)] = "<source>";
  for (const SourceFile& h : in.headers) user_.emplace(headerPath(h.name), h.name);
}

const std::string* FileNames::editable(llvm::StringRef path) const {
  auto it = user_.find(normalizePath(path));
  return it == user_.end() ? nullptr : &it->second;
}

bool FileNames::internal(llvm::StringRef path) {
  return startsWith(path, kInternalDir) || startsWith(path, kResourceInclude);
}

std::string FileNames::display(llvm::StringRef path) const {
  if (const std::string* n = editable(path)) return *n;
  if (path == kDeclsPath) return "<isg-builtins>";
  if (startsWith(path, kResourceInclude)) return path.substr(kResourceInclude.size()).str();
  return path.str();
}

std::string FileNames::scrub(std::string log) const {
  std::vector<std::pair<std::string, std::string>> pairs(user_.begin(), user_.end());
  std::sort(pairs.begin(), pairs.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [path, name] : pairs) replaceAll(log, path, name);
  replaceAll(log, kDeclsPath, "<isg-builtins>");
  replaceAll(log, kResourceInclude, "");
  return log;
}

namespace {
// Clang and LLVM initialize a few statics on first use (the driver's option table, the spelling
// of --driver-mode, the lock of LLVM's statistics). That is thread-safe (C++ statics, LLVM's
// double-checked ManagedStatic), but the fast paths sit in Clang's and LLVM's archives, which
// are not instrumented, so ThreadSanitizer sees no order between one build's initialization and
// another thread's use and reports a race. Initializing them under a static of ours, which
// every build passes first, gives it an order it can see.
void initializeClangStatics() {
  static const bool initialized = [] {
    (void)clang::driver::getDriverOptTable();
    (void)clang::driver::getDriverMode("clang", {});
    (void)llvm::GetStatistics();  // creates the statistics' lock
    return true;
  }();
  (void)initialized;
}
}  // namespace

std::vector<std::string> clangArgsFromOptions(const std::string& options) {
  namespace opts = clang::driver::options;
  const std::vector<std::string> words = splitBuildOptions(options);
  llvm::SmallVector<const char*, 32> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  initializeClangStatics();
  const llvm::opt::OptTable& table = clang::driver::getDriverOptTable();
  unsigned missingIndex = 0, missingCount = 0;
  llvm::opt::InputArgList args = table.ParseArgs(argv, missingIndex, missingCount);
  std::vector<std::string> out;
  for (const llvm::opt::Arg* a : args) {
    const llvm::opt::Option& o = a->getOption();
    if (!(o.matches(opts::OPT_D) || o.matches(opts::OPT_U) || o.matches(opts::OPT_I) ||
          o.matches(opts::OPT_opencl_Group)))
      continue;
    llvm::opt::ArgStringList rendered;
    a->render(args, rendered);
    for (const char* s : rendered) out.emplace_back(s);
  }
  return out;
}

std::string unknownBuildOptions(const std::string& options) {
  const std::vector<std::string> words = splitBuildOptions(options);
  llvm::SmallVector<const char*, 32> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  initializeClangStatics();
  unsigned missingIndex = 0, missingCount = 0;
  llvm::opt::InputArgList args = clang::driver::getDriverOptTable().ParseArgs(argv, missingIndex, missingCount);
  std::string log;
  for (const llvm::opt::Arg* a : args.filtered(clang::driver::options::OPT_UNKNOWN)) {
    const std::string word = a->getAsString(args);
    // NVIDIA's options are for its driver's build of the PTX; Intel's tune Intel's code generation.
    if (startsWith(llvm::StringRef(word), "-cl-nv-") || startsWith(llvm::StringRef(word), "-cl-intel-")) continue;
    log += "error: unknown build option '" + word + "'\n";
  }
  return log;
}

namespace {

// Clang's opencl-c-base.h with its as_type macros made safe: Clang 15 crashes (getTypeInfo of
// an overload set, in BuildAsTypeExpr) on `as_float(max)`, `as_float(intel_sub_group_block_read)`
// and the like, found by the fuzzer, which would take the application down. Through a comma
// the operand is an rvalue first, which resolves an overload set with an error (the driver
// gives its own diagnostics anyway); for every valid operand the value and type are the same.
std::string_view safeBaseHeader(std::string_view embedded) {
  static const std::string safe = [embedded] {
    std::string text(embedded);
    const std::string from = "__builtin_astype((x), ", to = "__builtin_astype(((void)0, (x)), ";
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
    return text;
  }();
  return safe;
}

// The file system a parse sees: the program and its headers in a virtual directory, Clang's
// OpenCL headers embedded, and (for the analysis) the table's declarations; the real file
// system underneath for -I and relative includes.
llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> programFileSystem(const RewriteInput& in,
                                                                         bool declarations,
                                                                         llvm::SmallString<256>* cwd,
                                                                         bool* haveCwd) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> mem(new llvm::vfs::InMemoryFileSystem);
  mem->addFile(kMainPath, 0, llvm::MemoryBuffer::getMemBufferCopy(in.source, kMainPath));
  for (const SourceFile& h : in.headers) {
    std::string path = headerPath(h.name);
    mem->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(h.text, path));
  }
  if (declarations)
    mem->addFile(kDeclsPath, 0,
                 llvm::MemoryBuffer::getMemBufferCopy(declarationsHeader(in.traits), kDeclsPath));
  for (const char* h : {"opencl-c-base.h", "opencl-c.h"}) {
    if (const EmbeddedFile* f = findEmbedded(std::string("clang/") + h)) {
      std::string path = (kResourceInclude + h).str();
      const std::string_view text = std::string_view(h) == "opencl-c-base.h" ? safeBaseHeader(f->text()) : f->text();
      mem->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(text.data(), text.size()), path, false));
    }
  }
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
  overlay->pushOverlay(mem);
  *haveCwd = !llvm::sys::fs::current_path(*cwd);
  if (*haveCwd) overlay->setCurrentWorkingDirectory(*cwd);
  return overlay;
}

// The driver command line of a parse of `in` for the device `in.traits` describes. `codegen`:
// the program is the layer's own (library and calls into it), compiled to IR: the device's
// khr sub-group builtins stay declared (the khr library calls them) and the table's
// declarations are not included (the library defines what it needs).
std::vector<std::string> driverArgs(const RewriteInput& in, bool codegen, CodegenTarget target,
                                    const llvm::SmallString<256>& cwd, bool haveCwd,
                                    const IntelInternalBuiltins* internal) {
  const bool nvptx = codegen && target != CodegenTarget::Spir;
  const bool typed = !codegen || target != CodegenTarget::Nvptx;
  const DeviceTraits& t = in.traits;
  // The device's extensions and features exactly, when the layer knows them (Clang ignores the
  // names it does not know; their macros come from -D below). For the analysis the khr
  // sub-group builtins stay undeclared: the declarations header has the table's own.
  std::string ext = "-cl-ext=";
  const bool knownDevice = !t.deviceExtensions.empty() || !t.openclCFeatures.empty();
  if (knownDevice) {
    ext += "-all";
    for (const std::string& e : t.deviceExtensions) ext += ",+" + e;
    for (const std::string& f : t.openclCFeatures) ext += ",+" + f;
    // Clang insists that each extension agrees with its OpenCL C 3.0 feature.
    auto has = [](const std::vector<std::string>& v, const char* n) {
      return std::find(v.begin(), v.end(), n) != v.end();
    };
    ext += has(t.deviceExtensions, "cl_khr_3d_image_writes") && t.images ? ",+__opencl_c_3d_image_writes"
                                                             : ",-__opencl_c_3d_image_writes";
    if (!t.images) ext += ",-__opencl_c_images,-__opencl_c_read_write_images";
    // The analysis must never reject what the driver builds (kBuiltinOnlyFeatures).
    if (!codegen) {
      for (const char* f : kBuiltinOnlyFeatures) ext += std::string(",+") + f;
      if (emulatesReadWriteImages(t)) ext += ",+__opencl_c_read_write_images";
    }
    ext += ",";
  }
  if (!codegen) ext += "-cl_khr_subgroups,-__opencl_c_subgroups,";
  ext += t.fp16 ? "+cl_khr_fp16" : "-cl_khr_fp16";
  ext += t.fp64 ? ",+cl_khr_fp64,+__opencl_c_fp64" : ",-cl_khr_fp64,-__opencl_c_fp64";
  // Clang gives NVPTX neither the image feature nor __IMAGE_SUPPORT__ (below): the layer's front
  // end compiles image code, the library's image overloads included, and then names images as
  // what it cannot build yet rather than failing on overloads that are not there.
  if (nvptx && t.images) ext += ",+__opencl_c_images";
  std::vector<std::string> args = {
      "clang", nvptx ? "--target=nvptx64-nvidia-nvcl" : "--target=spir64-unknown-unknown",
      codegen ? "-emit-llvm" : "-fsyntax-only",
      "-fno-color-diagnostics", "-ferror-limit=64", "-w",
      // Also keeps CompilerInstance from printing "N errors generated." to the host's stderr;
      // our own printer still shows carets.
      "-fno-caret-diagnostics", "-fgnu-keywords", "-nostdlibinc",
      // Clang 15 crashes (null type in DiagnoseAssignmentResult) when typo correction turns an
      // undeclared argument into an overloadable function such as our builtin declarations:
      // `f(pintel_sub_group_shuffle_up)` would take the application down. The driver gives
      // its own diagnostics anyway.
      "-fno-spell-checking",
      // Clang 15 also crashes on a redeclared array whose size calls a builtin of
      // -fdeclare-opencl-builtins with the wrong arguments (`a[get_global_id()]; a[get_global_id()];`,
      // found by the fuzzer): the recovery expression it keeps for the bad call. The layer uses
      // no AST of a program with errors, so it keeps none.
      "-Xclang", "-fno-recovery-ast",
      ("-resource-dir=" + kResourceDir).str(), "-Xclang", "-finclude-default-header", "-Xclang",
      "-fdeclare-opencl-builtins", "-Xclang", ext};
  if (codegen) {
    // Optimisable IR (no optnone), unoptimised: the driver (or ptx_backend.cpp) optimises the
    // whole program. Typed pointers for SPIR, as SPIRV-LLVM-Translator 15 reads and writes
    // them; NVPTX modules meet libclc, whose bitcode has opaque ones.
    for (const char* a : {"-c", "-O2", "-Xclang", "-disable-llvm-passes", "-ffp-contract=off"})
      args.push_back(a);
    if (typed)
      for (const char* a : {"-Xclang", "-no-opaque-pointers"}) args.push_back(a);
  }
  for (const std::string& e : extensionsFor(t)) {
    args.push_back("-D");
    args.push_back(e + "=1");
  }
  for (const std::string& e : t.deviceExtensions) {
    args.push_back("-D");
    args.push_back(e + "=1");
  }
  // For SPIR, opencl-c-base.h defines every feature macro (the analysis removes the device's
  // missing ones); for NVPTX Clang defines only those it knows (not the atomic orders and
  // scopes, which declare opencl-c.h's atomics).
  if (nvptx) {
    std::vector<std::string> features = t.openclCFeatures;
    for (const std::string& f : featuresOfExtensions(t))
      if (std::find(features.begin(), features.end(), f) == features.end()) features.push_back(f);
    for (const std::string& f : features) {
      args.push_back("-D");
      args.push_back(f + "=1");
    }
  }
  if (t.deviceOpenclVersion != 0) {
    args.push_back("-D");
    args.push_back("__OPENCL_VERSION__=" + std::to_string(t.deviceOpenclVersion));
  }
  if (knownDevice && !t.images) args.push_back("-U__IMAGE_SUPPORT__");
  if (nvptx && t.images) args.push_back("-D__IMAGE_SUPPORT__=1");  // with the image feature (above)
  // Builtins declared lazily (-fdeclare-opencl-builtins), which the library must know where it
  // overloads a builtin's name (75-image.cl).
  args.push_back("-D__ISG_LAZY_BUILTINS=1");
  args.push_back(("-I" + kInputDir).str());
  for (std::string& a : clangArgsFromOptions(in.options)) args.push_back(std::move(a));
  if (!codegen) {
    args.push_back("-include");
    args.push_back(kDeclsPath.str());
    // Intel-internal builtins parse as their stand-ins, as the driver's text will have them
    // (prelude.cpp); the analysis refuses the calls a kernel reaches.
    const IntelInternalBuiltins read = internal ? IntelInternalBuiltins{} : intelInternalBuiltins(in);
    for (const auto& [name, arity] : internal ? *internal : read) {
      args.push_back("-D");
      args.push_back(intelInternalStandIn(name, arity) + "=0");
    }
  }
  // Drivers resolve quoted includes against the process directory too.
  if (haveCwd) {
    args.push_back("-idirafter");
    args.push_back(std::string(cwd.str()));
  }
  args.push_back("-x");
  args.push_back("cl");
  args.push_back(kMainPath.str());
  return args;
}

}  // namespace

bool runClang(const RewriteInput& in, bool codegen, CodegenTarget target,
              std::unique_ptr<clang::FrontendAction> action, const FileNames& names, std::string* log,
              const IntelInternalBuiltins* internal) {
  llvm::SmallString<256> cwd;
  bool haveCwd = false;
  auto overlay = programFileSystem(in, !codegen, &cwd, &haveCwd);
  std::vector<std::string> args = driverArgs(in, codegen, target, cwd, haveCwd, internal);
  std::string text;
  llvm::raw_string_ostream logStream(text);
  LogConsumer consumer(logStream);
  bool ran = false;
  auto run = [&] {
    clang::noteBottomOfStack();
    llvm::IntrusiveRefCntPtr<clang::FileManager> files(
        new clang::FileManager(clang::FileSystemOptions(), overlay));
    clang::tooling::ToolInvocation invocation(args, std::move(action), files.get());
    invocation.setDiagnosticConsumer(&consumer);
    ran = invocation.run();
  };
  llvm::CrashRecoveryContext crc;
  bool completed = crc.RunSafelyOnThread(run, 8u << 20);
  logStream.flush();
  *log = names.scrub(text);
  return completed && ran && consumer.getNumErrors() == 0;
}

namespace {

// C99 `inline` without `static` or `extern` (CLBlast's INLINE_FUNC) is an inline definition only:
// Clang emits its body as available_externally for the optimiser, which source_to_ptx.cpp makes
// the program's own. Since 16 Clang emits no such body for a function marked noinline, and the
// call would stay unresolved; without the mark the body is there, as in 15. (noinline is a hint;
// for NVIDIA's PTX, as for its own compiler, the whole program is one module.)
class InlineDefinitionsKeepTheirBodies : public clang::ASTConsumer {
 public:
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl* d : group)
      if (auto* f = llvm::dyn_cast<clang::FunctionDecl>(d);
          f && f->doesThisDeclarationHaveABody() && f->isInlineSpecified() && !f->isInlineDefinitionExternallyVisible())
        f->dropAttr<clang::NoInlineAttr>();
    return true;
  }
};

}  // namespace

std::unique_ptr<llvm::Module> compileToModule(const RewriteInput& in, llvm::LLVMContext& context,
                                              std::string* log, CodegenTarget target) {
  FileNames names(in);
  auto action = std::make_unique<clang::EmitLLVMOnlyAction>(&context);
  clang::EmitLLVMOnlyAction* emit = action.get();
  // The invocation owns the action and destroys it inside the run: the module is taken as the
  // action ends.
  std::unique_ptr<llvm::Module> module;
  struct Taking : clang::WrapperFrontendAction {
    Taking(std::unique_ptr<clang::FrontendAction> inner, clang::EmitLLVMOnlyAction* emit,
           std::unique_ptr<llvm::Module>* out)
        : WrapperFrontendAction(std::move(inner)), emit_(emit), out_(out) {}
    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef file) override {
      std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
      consumers.push_back(std::make_unique<InlineDefinitionsKeepTheirBodies>());
      consumers.push_back(WrapperFrontendAction::CreateASTConsumer(ci, file));
      if (!consumers.back()) return nullptr;
      return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
    }
    void EndSourceFile() override {
      WrapperFrontendAction::EndSourceFile();
      *out_ = emit_->takeModule();
    }
    clang::EmitLLVMOnlyAction* emit_;
    std::unique_ptr<llvm::Module>* out_;
  };
  bool ok = runClang(in, /*codegen=*/true, target, std::make_unique<Taking>(std::move(action), emit, &module),
                     names, log);
  if (!ok) module.reset();
  return module;
}

}  // namespace isg::detail
