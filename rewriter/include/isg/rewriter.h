// SPDX-License-Identifier: MIT
// The interface between the layer and the rewriter: the layer includes only rewriter/include/isg/
// (this header, strategies.h, build_options.h, json.h, and rewriter_library.h, which loads the
// library; tools/check-includes.py holds that direction). The rewriter knows nothing about OpenCL
// objects: it turns sources + options + device traits into sources for the driver and a
// manifest per kernel.
#pragma once

#include "isg/strategies.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace isg {

const char* strategyName(Strategy s);                   // "native", "nvidia-ptx", "khr", "local"
bool parseStrategy(std::string_view text, Strategy* out);

// What the rewriter must know about the device it rewrites for.
struct DeviceTraits {
  Strategy strategy = Strategy::Local;
  unsigned defaultSubGroupSize = 16;        // for kernels without intel_reqd_sub_group_size
  std::vector<unsigned> supportedSubGroupSizes;  // sizes the strategy honours on this device
  bool fp16 = false;
  bool fp64 = false;
  bool images = false;
  // read_write image arguments (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS > 0). OpenCL C 2.0 makes
  // them core, but a 3.0 driver may accept -cl-std=CL2.0 without them (NVIDIA): a kernel that
  // takes one is refused at the rewrite, with a log that says why.
  bool readWriteImages = true;
  // NVIDIA's driver lays out local-memory kernel arguments from an odd address, each aligned
  // only to its pointee type (a `local char*` at 0x401), and honours no alignment attribute
  // there: the rewriter declares such parameters `local uint4*` (16 bytes), so that kernels
  // reading a byte table through wider pointers (ggml) do not fault.
  bool alignLocalArgs = false;
  unsigned openclCVersion = 120;            // highest OpenCL C the device compiles: 120, 200, 300
  // What the driver predefines for this device, so that the parse takes the #if branches the
  // driver will: __OPENCL_VERSION__ (the device's OpenCL version: 300 for "OpenCL 3.0 ..."),
  // a macro per extension the driver reports, and its OpenCL C 3.0 features. 0 / empty:
  // unknown (isg-rewrite without --device-*): Clang's defaults for the target.
  unsigned deviceOpenclVersion = 0;
  std::vector<std::string> deviceExtensions;
  std::vector<std::string> openclCFeatures;
  // The driver has OpenCL C 2.0's work-group collective functions (an OpenCL C 2.x device, or
  // __opencl_c_work_group_collective_functions among its features): the layer leaves them to it;
  // otherwise it provides them (builtins.def, work_group) and advertises the feature.
  bool workGroupCollectives = false;
  unsigned nativeSubGroupSize = 0;          // khr / nvidia-ptx: the hardware's size; 0 otherwise
  // nvidia-ptx only: compute capability as major * 10 + minor (e.g. 90); instructions newer
  // than sm_70 (redux.sync, sm_80) are used only where it allows them. 0 = unknown (sm_70).
  unsigned nvidiaComputeCapability = 0;
  // ISG_SUB_GROUP_SIZE_FROM_LAUNCH (on unless ISG_SUB_GROUP_SIZE names a size): kernels without
  // intel_reqd_sub_group_size take their sub-group size from their rows (launchSubGroupSize):
  // from reqd_work_group_size on every strategy, else from each launch where the strategy's
  // library takes an S known only then (StrategyFacts::launchSubGroupSize).
  bool subGroupSizeFromLaunch = false;
  // ISG_REFUSE_DIVERGENT: an exchange that only some work-items may reach, in control flow the
  // rewriter cannot give the others a part in (docs/design.md, "Intel's execution model"),
  // fails the build with a log at its line; off: the driver gets it as written, with a warning.
  bool refuseDivergent = true;
  // ISG_LOCK_STEP: kernels that share local memory with no barrier (written for Intel's SIMD
  // lock-step) get a barrier after each statement that touches it (source/lockstep.h).
  bool lockStep = true;
  // khr only. The khr builtins come from the test double builtins-cl/khr-test/ (a reference
  // implementation with native size nativeSubGroupSize over the local scratch) instead of the
  // driver: ISG_KHR_TEST_NATIVE_SIZE. Minimal: the double lacks the optional khr extensions.
  bool khrTestDouble = false;
  bool khrTestMinimal = false;
};

// Sets traits->strategy and what the strategy decides about sizes: the sub-group sizes it
// honours, its default S (before ISG_SUB_GROUP_SIZE) and the native size it keeps. `nativeSize`
// is the hardware's sub-group size for khr (probed, or the test double's) and ignored otherwise.
// The layer's device profiles and isg-rewrite both take these facts from here.
void applyStrategyDefaults(Strategy strategy, unsigned nativeSize, DeviceTraits* traits);

// The sub-group size of a work-group `localX` wide in x, for kernels that take theirs from
// their rows (DeviceTraits::subGroupSizeFromLaunch) on a device whose default S is `defaultS`:
// the x size where it is one of Intel's GPU widths (8, 16) and narrower than the default, else
// the default. Intel's runtimes never make a sub-group span two rows narrower than their width
// (Intel's CPU runtime makes each row its own: docs/design.md, "Intel's execution model"), and
// Intel-targeted code sizes its rows to the sub-groups it expects (a GEMM's 8 x 4, ggml's 16 x 2).
unsigned launchSubGroupSize(std::size_t localX, unsigned defaultS);
// The same rule as OpenCL C, for the library's prologue: `#define __ISG_LAUNCH_S(x) ...`.
std::string launchSubGroupSizeMacro(unsigned defaultS);

struct SourceFile {
  std::string name;  // as the program names it: "<source>" for the main text, header include names
  std::string text;
};

// A function that takes the sub-group context first because it reaches a builtin, with what a
// kernel in another compiled object that calls it must provide for it: the builtin families it
// reaches and the widest value it exchanges (separate compilation: docs/design.md).
struct ContextFunction {
  std::string name;
  std::vector<std::string> families;
  unsigned widestBytes = 0;
};

struct RewriteInput {
  std::string source;               // the program's source (all strings of clCreateProgramWithSource, joined)
  std::vector<SourceFile> headers;  // clCompileProgram's input headers (name = header_include_names[i])
  std::string options;              // build options exactly as the application passed them
  DeviceTraits traits;
  // clCompileProgram: the object may define functions other objects call, so nothing in its
  // helpers may assume the sub-group size of its own kernels.
  bool compiledObject = false;
  // clLinkProgram: functions other objects of the link define that take the sub-group context.
  // The program's calls of them pass it, and its kernels provide what they need.
  std::vector<ContextFunction> externalContext;
  // A launch variant (layer/launch/launch_variants.h): every kernel that declares no
  // reqd_work_group_size is written as if it declared this one, for launches whose work-groups
  // are all that size (so all uniform); {0, 0, 0}: none.
  std::size_t assumedWorkGroupSize[3] = {0, 0, 0};
  // The layer's front end for NVIDIA: kernels that can pack get packed copies
  // (rewriter/src/ptx/launch_shape.h; the layer's ISG_PACK_WORK_GROUPS).
  bool packWorkGroups = false;
};

// A layer-owned kernel argument appended after the user's arguments.
struct HiddenArg {
  // LocalScratch: the local strategy's exchange area, sized per launch. RawImage: the texels
  // of a read_write image2d_t argument on a device without read-write images, in a buffer the
  // layer fills before the launch and copies back after it (docs/builtins.md). LaunchShape:
  // NVIDIA, the layer's PTX path: `ulong[3]` by value, the application's global size of a
  // non-uniform launch the layer rounds up to whole work-groups, zeros otherwise (set when
  // the kernel is created and around each such launch). ImageFacts: `int4` by value, the
  // channel order, channel data type, width and height of the image the kernel's image
  // argument `imageArg` names, for the block and media IO calls that name that parameter in
  // the kernel itself (set with every clSetKernelArg of the image, and around a stand-in):
  // on NVIDIA each size query costs what a texel read does (docs/performance.md).
  // PackedLaunch: NVIDIA, the layer's PTX path: the kernel has a packed copy, the program's
  // kernel named as it plus kPackedKernelSuffix, which runs CTAs of 32 threads that each hold 32
  // / W of the application's work-groups of W < 32 work-items (its reqd_work_group_size); `index`
  // is that copy's parameter `ulong[kPackedLaunchWords]` (by value), the description of the
  // launch, set at every launch of the copy (rewriter/src/ptx/launch_shape.h). The kernel itself has no such parameter.
  enum class Kind { LocalScratch, RawImage, LaunchShape, ImageFacts, PackedLaunch };
  Kind kind = Kind::LocalScratch;
  unsigned index = 0;     // argument index in the driver's kernel
  unsigned imageArg = 0;  // RawImage, ImageFacts: the application's image argument
};

// The name of a kernel's packed copy, after the kernel's own (HiddenArg::Kind::PackedLaunch): a
// kernel of the driver's program that the application never sees.
inline constexpr const char* kPackedKernelSuffix = "__isg_packed";
// The words of a packed launch's description (HiddenArg::Kind::PackedLaunch), as
// builtins-cl/ptx-runtime/workitems.cl names them (__ISG_PACK_*).
inline constexpr unsigned kPackedLaunchWords = 8;

// What clGetKernelArgInfo answers for one of the application's kernel arguments, as the
// application declared it (Clang's kernel_arg_* metadata spells it so): the layer answers from
// here where the driver cannot (PTX has no argument information) or would describe a
// parameter the rewriter changed (local pointers on NVIDIA, read_write image stand-ins).
struct ArgInfo {
  enum class Address { Private, Global, Constant, Local };
  enum class Access { None, ReadOnly, WriteOnly, ReadWrite };
  // Bits as CL_KERNEL_ARG_TYPE_CONST, _RESTRICT, _VOLATILE, _PIPE.
  enum TypeQualifier : unsigned { Const = 1, Restrict = 2, Volatile = 4, Pipe = 8 };
  Address address = Address::Private;
  Access access = Access::None;
  std::string typeName;  // "float*", "uint4", "image2d_t"
  unsigned typeQualifiers = 0;
  std::string name;
};

struct KernelManifest {
  std::string name;
  unsigned subGroupSize = 0;          // S: from intel_reqd_sub_group_size, else the default
  bool requiredSubGroupSize = false;  // true when the kernel carries intel_reqd_sub_group_size
  // S is chosen per launch (DeviceTraits::subGroupSizeFromLaunch): launchSubGroupSize(the
  // work-group's x size); subGroupSize holds the largest it can be.
  bool launchSubGroupSize = false;
  std::vector<std::string> families;  // builtin families it uses (directly or through helpers)
  unsigned scratchBytesPerItem = 0;   // bytes of one work-item's slot in one half of the scratch
  unsigned numUserArgs = 0;           // the arguments the application sees
  std::vector<HiddenArg> hiddenArgs;  // appended arguments, in index order
  std::size_t reqdWorkGroupSize[3] = {0, 0, 0};  // from reqd_work_group_size, 0 = none
  // Every sub-group has S members: reqd_work_group_size is a multiple of S and every work-group
  // has that size (OpenCL C before 2.0, or -cl-uniform-work-group-size).
  bool wholeSubGroups = false;
  // Image arguments the kernel reads or writes with block IO (directly or through helpers):
  // block IO moves raw bits, which the library recovers exactly only for some image formats.
  std::vector<unsigned> blockImageArgs;
  // Those of blockImageArgs that other image functions (read_image*, write_image*, queries)
  // use as well: the layer cannot hand such an argument a raw-bits view of the image.
  std::vector<unsigned> mixedImageArgs;
  // One per user argument; empty where the rewriter did not see the declaration (SPIR-V).
  std::vector<ArgInfo> args;
  // The build log warns that its results may differ from Intel's where its flow depends on
  // work-item ids (block IO given each member's pointer, local memory out of lock-step in a
  // loop; strategies that keep each member's pointer there): a rewrite that knows the
  // work-group's size (a launch variant) may settle that, so the layer waits for one at each
  // launch that can have it (docs/design.md, "Launch variants").
  bool shapeDependentResult = false;
};

// Whether kernel `km` moves values between the members of its sub-groups (a sub-group builtin
// with a scratch slot): how the driver cuts work-groups into sub-groups then matters. A kernel
// whose slot is only a work-group collective's (or lent for one, a macro sharing its prologue)
// moves values by local id alone.
bool exchangesWithinSubGroups(const KernelManifest& km);

// Lines [rewrittenFirst, rewrittenFirst + count) of rewritten file `rewrittenFile` hold lines
// [originalFirst, ...) of `originalFile`. Lines in no entry are the layer's own (prelude).
struct LineMapEntry {
  std::string rewrittenFile;  // "<source>" or a header name
  unsigned rewrittenFirst = 1;
  unsigned count = 0;
  std::string originalFile;
  unsigned originalFirst = 1;
};

struct RewriteResult {
  // What the driver gets: OpenCL C (`source`, `headers`), or for programs from SPIR-V a module
  // in `binary`: LLVM bitcode for cl_khr_spir drivers, SPIR-V, or for NVIDIA's driver PTX text
  // (NUL-terminated, as NVIDIA's own program binaries are).
  // Object: clCompileProgram on the layer's front end (compileObjectForNvidia): the object
  // compiles; the link compiles it again with the others (linkForNvidia), so the driver gets
  // nothing of it yet.
  enum class Form { Source, Bitcode, Spirv, Ptx, Object };
  enum class Status {
    PassThrough,  // nothing to do: give the driver the original source and options untouched
    Rewritten,    // give the driver `source`, `headers` and `options`
    Error         // the build must fail with CL_BUILD_PROGRAM_FAILURE; `log` says why
  };
  Status status = Status::PassThrough;
  Form form = Form::Source;
  std::string binary;
  std::string source;
  std::vector<SourceFile> headers;  // same names as the input; rewritten where needed
  std::string options;              // options for the driver
  std::vector<KernelManifest> kernels;
  // Separate compilation: functions this program defines that now take the sub-group context
  // first, and functions it calls but does not define. A link that resolves one object's call
  // to another object's context-taking function rewrites the caller again with the callee in
  // RewriteInput::externalContext.
  std::vector<ContextFunction> contextFunctions;
  std::vector<std::string> externalFunctions;
  // The library the program was rewritten for: traits.strategy, except that khr falls back to
  // local for the whole program when a kernel's S does not divide the native size (log says so).
  Strategy strategy = Strategy::Local;
  std::vector<LineMapEntry> lineMap;
  std::string log;  // diagnostics for the build log, already pointing at the user's files/lines
  // Files the parse read from disk (-I, relative includes) with the text it saw: the result
  // holds only while they keep it. Those that needed edits are folded into `source`/`headers`.
  std::vector<SourceFile> diskFiles;
};

// Cheap textual scan: false means the program certainly needs no rewriting (no sub-group
// builtin, attribute or extension macro is named anywhere in it).
bool mayNeedRewrite(const RewriteInput& input);

// Whether the program uses half (names half, halfN or cl_khr_fp16 in the code the preprocessor
// keeps, cl_khr_fp16 defined), and so needs a compiler with cl_khr_fp16 (compileForNvidia on
// NVIDIA): a textual scan like mayNeedRewrite, then, where the text names half, the preprocessor.
bool mayUseHalf(const RewriteInput& input);

// Cheap textual scan like mayNeedRewrite: whether the program may print vectors with printf
// (a `%v<n>` conversion), which a build by NVIDIA's compiler cannot (compileForNvidia can).
bool mayPrintVectors(const RewriteInput& input);

// Cheap textual scan like mayNeedRewrite: whether the program may use cl_khr_integer_dot_product
// (it names one of its own functions, the extension or its feature macros), and so needs a
// compiler with the extension (compileForNvidia on NVIDIA, whose compiler lacks it).
bool mayUseIntegerDot(const RewriteInput& input);

// The OpenCL C 3.0 feature macros that come with `extension` (cl_khr_integer_dot_product's
// __opencl_c_integer_dot_product_input_4x8bit and _packed), for a device that offers it.
const std::vector<std::string>& openclCFeaturesOf(std::string_view extension);

// Cheap textual scan like mayNeedRewrite: the first of `names` the program's text has as an
// identifier (comments and inactive preprocessor branches count), or nullptr. *unreadable (when
// given) is set where the program includes a file the scan could not read, which may name one.
const char* namedIdentifier(const RewriteInput& input, const std::vector<const char*>& names,
                            bool* unreadable = nullptr);

// Full rewrite. Never throws, never crashes on any input; thread-safe; results are cached by
// (source, headers, options, traits).
RewriteResult rewriteProgram(const RewriteInput& input);

// The newest SPIR-V the layer reads (SPIRV-LLVM-Translator 15 reads 1.0 to 1.4 and ends the
// process on a newer module): what it validates against, advertises and writes at most.
constexpr unsigned kSpirvReadMax = 0x00010400;

// A program from SPIR-V (clCreateProgramWithIL) as the rewriter takes it.
struct ModuleInput {
  std::string spirv;    // the application's module
  std::string options;  // build options as the application passed them
  DeviceTraits traits;
  // What the driver takes: cl_khr_spir bitcode (PoCL), SPIR-V of at most `spirvVersion`
  // (0x00010000 = 1.0) without vendor extensions (IL drivers with cl_khr_subgroups), or PTX
  // for traits.nvidiaComputeCapability (NVIDIA).
  RewriteResult::Form output = RewriteResult::Form::Bitcode;
  unsigned spirvVersion = 0x00010000;
  std::string bridgePath;  // libIntelSubgroupsSpirv.so; "" = beside the rewriter's own binary
};

// The SPIR-V front end (docs/design.md, "Programs from SPIR-V"): validates the module, reads it
// through SPIRV-LLVM-Translator, realises every Intel builtin call with the strategy's library
// (compiled by the in-process Clang) as the source rewriter would, and writes the module in
// `input.output` form with the same manifest. PassThrough only where the driver takes SPIR-V
// and the module uses no Intel sub-group feature. Never throws; thread-safe.
RewriteResult rewriteModule(const ModuleInput& input);

// Overloadable OpenCL C declarations of every builtin of the table for a device with `traits`
// (what the rewriter's parse sees): with them, a compiler that lacks some Intel builtins (clang
// 15 has no char/long/media ones) can compile Intel-targeted code to SPIR-V.
std::string builtinDeclarations(const DeviceTraits& traits);

// Whether the SPIR-V translator bridge (`bridgePath`, "" = beside the rewriter's binary) loads;
// false with the reason in *why. Loads it on the first call.
bool spirvAvailable(const std::string& bridgePath, std::string* why);

// Whether the bridge is installed (its file is there), without loading it: loading maps
// libLLVM-15 (tens of MiB), which only a program from SPIR-V needs. An installed bridge that then
// fails to load fails that build, with the reason in its log.
bool spirvInstalled(const std::string& bridgePath, std::string* why);

// Whether programs from SPIR-V can be written as PTX (libclc's nvptx64--nvidiacl.bc is found);
// false with the reason in *why.
bool ptxAvailable(std::string* why);

// NVIDIA: the layer's own OpenCL C front end (docs/design.md, "Build paths on NVIDIA"), for
// what NVIDIA's compiler rejects (OpenCL C 2.0/3.0 as Intel's compiler takes it). Rewrites
// `input` as rewriteProgram does, for input.traits (nvidia-ptx or local) plus the OpenCL C 3.0
// features the path has (generic address space, program-scope globals, the atomic orders and
// scopes), then compiles it with the in-process Clang and LLVM's NVPTX back end. The result
// is Rewritten in Form::Ptx, also for a program that needs no rewriting: the PTX
// (NUL-terminated) in `binary`, the manifest, and the rewritten source; `options` are the
// application's with the extension macros, for the caller to cut to what NVIDIA's driver
// applies to PTX. Error with a log in the user's files and lines when the layer's Clang
// rejects the program or it uses what the path cannot build yet (images, printf). Never
// throws; thread-safe; cached like rewriteProgram.
RewriteResult compileForNvidia(const RewriteInput& input);

// `traits` as the layer's front end compiles for them: OpenCL C 3.0 as Intel's compiler takes
// it, with the features the path has (generic address space, program-scope globals, the atomic
// orders and scopes) whatever the device's own compiler lists.
DeviceTraits frontEndTraits(DeviceTraits traits);

// clCompileProgram on the layer's front end: rewrites `input` (a compiled object) as
// compileForNvidia does and compiles it, to report its errors now as a driver's compile does.
// Rewritten in Form::Object (its `source` the rewritten text, empty where the rewriter left it
// alone) or Error with a log in the user's lines. The object's code is linkForNvidia's to make.
RewriteResult compileObjectForNvidia(const RewriteInput& input);

// clLinkProgram on the layer's front end: each of `objects` (compiled objects, with the
// external context the link found for them) rewritten and compiled as compileObjectForNvidia
// does, the modules linked as a driver links objects, and the whole written as PTX for the
// link's `options`: a result as compileForNvidia's, the manifest of every object's kernels.
RewriteResult linkForNvidia(const std::vector<RewriteInput>& objects, const std::string& options);

// Full validation of a SPIR-V module (SPIRV-Tools): false with the validator's reason in *why.
bool validateModule(const std::string& spirv, std::string* why);

// Maps file:line references in a driver build log from rewritten to original positions and
// drops diagnostics that point into the layer's own prelude.
std::string mapBuildLog(const std::string& driverLog, const RewriteResult& result);

// The manifest as JSON (tools/isg-rewrite --manifest, ISG_DUMP_DIR).
std::string manifestToJson(const RewriteResult& result);

// Options the driver needs for every program on a rewritten device (extension macros).
std::string extensionMacroOptions(const DeviceTraits& traits);
// Options a rewritten program built with `options` needs beside those: under -cl-std=CL2.x on
// a device that reports OpenCL C 3.0 features without the generic address space (so no full
// OpenCL C 2.0: PoCL 3.1), Clang-based drivers declare the address-space builtins (vload,
// vstore, fract, ...) neither for generic nor for named pointers; the macro that makes them
// declare the named ones. "" otherwise.
std::string driverFeatureOptions(const DeviceTraits& traits, const std::string& options);

}  // namespace isg
