// SPDX-License-Identifier: MIT
// What the rewriter reads of builtins-cl/builtins.def (through builtin_table.h, the one C++
// view of it), so adding a row there is the only change a new builtin needs.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "builtin_table.h"
#include "isg/rewriter.h"

namespace isg::detail {

using table::Requirement;
using table::Shape;
using table::TypeEntry;

// One function of the table: an ISG_FUNC row, or one half of an ISG_BLOCK or ISG_MEDIA row.
struct Builtin {
  std::string name;
  std::string family;     // "block" for ISG_BLOCK rows, "media" for ISG_MEDIA rows
  std::string extension;
  Shape shape = Shape::U_V;
  std::vector<TypeEntry> types;  // gentype rows; empty for shapes without one
  std::string element;           // block and media rows: element type and vector width
  unsigned width = 0;
  bool needsActiveSet = false;  // its extension's (table::Extension::needsActiveSet)
  // OpenCL C 2.0's work-group collective functions (builtins.def's work_group family): taken
  // only where the driver lacks them (DeviceTraits::workGroupCollectives).
  bool workGroup = false;
};

// The family of the work-group collective functions in builtins.def.
inline constexpr std::string_view kWorkGroupFamily = "work_group";

const std::vector<Builtin>& builtins();
const Builtin* findBuiltin(std::string_view name);
// Whether the rewrite takes calls of `b` on a device with `traits`: every row but those of the
// extensions made for divergent flow where the strategy cannot know which work-items reach a
// call (isg/strategies.def, active_set), and the work-group collectives where the driver has
// its own. Those calls stay as written, undeclared by the layer: a driver that has the
// functions natively serves them, any other refuses them as it would without the layer.
bool takenOn(const Builtin& b, const DeviceTraits& traits);
// findBuiltin, for the rows takenOn(traits).
const Builtin* findBuiltin(std::string_view name, const DeviceTraits& traits);

// Extension names in advertising order (ISG_EXTENSIONS).
const std::vector<std::string>& extensions();
// The ones a device with `traits` gets (the layer advertises the same: those needing images only
// where there are images).
std::vector<std::string> extensionsFor(const DeviceTraits& traits);

// Every identifier whose presence means a program may need the rewrite.
const std::vector<std::string>& triggerWords();

// Bytes one work-item hands to one exchange for a call of `b` whose gentype is `typeBytes` wide
// (0 for builtins that exchange nothing); wide vectors go in several exchanges.
unsigned exchangeBytes(const Builtin& b, unsigned typeBytes);

// Intel's execution model (source/predication.h, module/module_divergence.cpp). Whether work-item
// query `name` may answer differently within an exchange group: a work-group (`workGroup`: the
// strategies that exchange through work-group barriers, whose last sub-group may be partial) or
// a sub-group.
bool queryVariesInExchangeGroup(std::string_view name, bool workGroup);
// Whether every member of the sub-group gets the same result of `b` (reductions, broadcasts, votes).
bool resultIsSubGroupUniform(const Builtin& b);

// The header force-included while parsing: overloadable declarations of every table builtin for
// the types the device supports.
std::string declarationsHeader(const DeviceTraits& traits);
// The OpenCL C 3.0 features the layer adds (table::features(): __opencl_c_subgroups), defined
// where the device compiles OpenCL C 3.0 and the compile is OpenCL C 3.0: the parse and the
// rewritten program (for the driver or the front end) both start with them.
std::string offeredFeatureMacros(const DeviceTraits& traits);

// OpenCL C 3.0 features whose only effect is to declare builtins, which drivers take whether
// they report the feature or not (NVIDIA's OpenCL C 3.0 takes atomic_fetch_add without the
// atomics features). Clang 15 declares a table builtin only while its feature's macro is
// defined at the call, so the analysis keeps these macros defined; features that change the
// language (generic address space, program-scope variables, pipes) stay the device's.
extern const char* const kBuiltinOnlyFeatures[6];

// The OpenCL C features a device's extension declares builtins under, whatever the device
// reports in CL_DEVICE_OPENCL_C_FEATURES: a device with cl_khr_integer_dot_product has its
// functions (Clang 15 declares them only while the features' macros are defined, which its
// header does for SPIR from OpenCL C 2.0 and nothing does for NVPTX).
std::vector<std::string> featuresOfExtensions(const DeviceTraits& traits);

// Whether the layer stands in for read_write image2d_t on the device (images, but no read-write
// ones: NVIDIA): the parse declares them, the prelude selects the library's stand-in and
// defines __opencl_c_read_write_images for the driver too.
inline bool emulatesReadWriteImages(const DeviceTraits& traits) {
  return traits.images && !traits.readWriteImages;
}

// Whether block IO whose members may pass different pointers takes the first active member's on
// khr (a real driver with cl_khr_subgroup_ballot, whose functions need not be reached by every
// member): then every such call does, under any flow, as on nvidia-ptx, and the prelude defines
// __ISG_KHR_FIRST_ACTIVE for the library (khr/05-context.cl). Without it, member 0's is taken
// by shuffles only where every member reaches the call.
inline bool khrTakesFirstActive(const DeviceTraits& traits) {
  return traits.strategy == Strategy::Khr && !traits.khrTestDouble &&
         std::find(traits.deviceExtensions.begin(), traits.deviceExtensions.end(), "cl_khr_subgroup_ballot") !=
             traits.deviceExtensions.end();
}

// What a collective builtin computes, read off its name as builtins.def spells the families
// broadcast, reduce, scan, vote and work_group: *_broadcast, *_reduce_<op>,
// *_scan_{inclusive,exclusive}_<op>, *_all and *_any. One reading serves the library's bodies
// (collectiveRows) and the rule for the work-items outside a call (the predication).
struct Collective {
  enum Kind { Broadcast, Reduce, ScanInclusive, ScanExclusive, Vote } kind;
  std::string op;  // add, min, max; all, any; empty for a broadcast
};
Collective collectiveOf(std::string_view name);

// The rows of the collective families (broadcast, reduce, scan, work_group) for the library: every name of
// the family in the table defines __ISG_DEF_<name> as its strategy's body for the operation the
// name says, and __ISG_ROW_<family> expands a row (or nothing when `families` lacks it).
std::string collectiveRows(const std::vector<std::string>& families);

// The argument count of a builtin's usual call (a barrier's flags, a pointer block read).
unsigned usualArity(const Builtin& b);

// The `#define name(a, b) __isg_name(__isg_ctx, a, b)` lines of the prelude: one per table name
// the rewrite takes on the device (takenOn; but `skip`) with the arity `arity` gives it (else
// usualArity), one
// `__ISG_A<count>_<name>` macro per entry of `extra`, one `__ISG_CV<count>_<name>` macro,
// which passes the converged context (__isg_cctx), per entry of `converged`, and one
// `__ISG_IF<count>_<name>` macro per entry of `facts`, which adds the image argument's facts
// (`<image>__isg_facts`, the kernel's hidden parameter: its image argument is a parameter name),
// and one `__ISG_L0_<name>` macro per entry of `firstMember`: buffer block IO that passes the
// first member's pointer (__isg_first_member_rd / _wr, builtins-cl/common/80-block.cl).
std::string builtinMacros(const DeviceTraits& traits, const std::vector<std::string>& skip,
                          const std::vector<std::pair<std::string, unsigned>>& arity,
                          const std::vector<std::pair<std::string, unsigned>>& extra,
                          const std::vector<std::pair<std::string, unsigned>>& converged,
                          const std::vector<std::pair<std::string, unsigned>>& facts,
                          const std::vector<std::pair<std::string, unsigned>>& firstMember = {});

// The position of the image among the arguments of a block or media IO call of `count`
// arguments (block IO's first, media IO's last), or -1 where the shape takes none.
int imageArgPosition(const Builtin& b, unsigned count);

}  // namespace isg::detail
