// SPDX-License-Identifier: MIT
#include "common/table.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

#include "common/embedded.h"
#include "isg/rewriter.h"

namespace isg::detail {
namespace {

std::vector<Builtin> makeBuiltins() {
  std::vector<Builtin> rows;
  for (const table::Function& f : table::functions()) {
    const table::Extension* e = table::extensionNamed(f.extension);
    rows.push_back(Builtin{f.name, f.family, f.extension, f.shape, f.types, "", 0,
                           e && e->needsActiveSet, f.family == kWorkGroupFamily});
  }
  for (const table::Block& b : table::blocks()) {
    rows.push_back(Builtin{b.read, "block", b.extension, Shape::BlockRead, {}, b.element, b.width});
    rows.push_back(Builtin{b.write, "block", b.extension, Shape::BlockWrite, {}, b.element, b.width});
  }
  for (const table::Media& m : table::mediaBlocks()) {
    rows.push_back(Builtin{m.read, "media", m.extension, Shape::MediaRead, {}, m.element, m.width});
    rows.push_back(Builtin{m.write, "media", m.extension, Shape::MediaWrite, {}, m.element, m.width});
  }
  return rows;
}

std::vector<std::string> makeExtensions() {
  std::vector<std::string> names;
  for (const table::Extension& e : table::extensions()) names.push_back(e.name);
  return names;
}

std::string vectorType(const std::string& element, unsigned width) {
  return width > 1 ? element + std::to_string(width) : element;
}

}  // namespace

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> rows = makeBuiltins();
  return rows;
}

const Builtin* findBuiltin(std::string_view name) {
  for (const Builtin& b : builtins())
    if (b.name == name) return &b;
  return nullptr;
}

bool takenOn(const Builtin& b, const DeviceTraits& traits) {
  if (b.workGroup) return !traits.workGroupCollectives;
  return !b.needsActiveSet || factsOf(traits.strategy).activeSet;
}

const Builtin* findBuiltin(std::string_view name, const DeviceTraits& traits) {
  for (const Builtin& b : builtins())
    if (b.name == name && takenOn(b, traits)) return &b;
  return nullptr;
}

std::vector<std::string> extensionsFor(const DeviceTraits& traits) {
  std::vector<std::string> names;
  for (const table::Extension& e : table::extensions())
    if (e.offeredTo(traits.images, /*spirv=*/false, traits.openclCVersion,
                    factsOf(traits.strategy).activeSet))
      names.push_back(e.name);
  return names;
}

const std::vector<std::string>& extensions() {
  static const std::vector<std::string> names = makeExtensions();
  return names;
}

const std::vector<std::string>& triggerWords() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w;
    for (const Builtin& b : builtins()) w.push_back(b.name);
    for (const std::string& e : extensions()) w.push_back(e);
    w.push_back("intel_reqd_sub_group_size");
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    return w;
  }();
  return words;
}

Collective collectiveOf(std::string_view name) {
  const std::string op(name.substr(name.rfind('_') + 1));
  if (name.find("_scan_inclusive_") != std::string_view::npos) return {Collective::ScanInclusive, op};
  if (name.find("_scan_exclusive_") != std::string_view::npos) return {Collective::ScanExclusive, op};
  if (name.find("_reduce_") != std::string_view::npos) return {Collective::Reduce, op};
  if (op == "broadcast") return {Collective::Broadcast, ""};
  return {Collective::Vote, op};
}

namespace {
// __ISG_DEF_<name>'s body for a row of a collective family: the strategy's macro for the
// operation the name says (builtins-cl/<strategy>/*.cl, common/90-work-group.cl); the
// work-group family's carry __ISG_WG_.
std::string collectiveBody(std::string_view family, const std::string& name) {
  const Collective c = collectiveOf(name);
  const std::string prefix = family == kWorkGroupFamily ? "__ISG_WG_" : "__ISG_";
  switch (c.kind) {
    case Collective::Broadcast: return prefix + "BROADCAST_BODY(" + name + ", T, s, w, req)";
    case Collective::Vote: return prefix + "VOTE_BODY(" + name + ", " + c.op + ")";
    case Collective::Reduce: return prefix + "REDUCE_BODY(" + name + ", " + c.op + ", T, s, w, req)";
    case Collective::ScanInclusive:
      return prefix + "SCAN_INCLUSIVE_BODY(" + name + ", " + c.op + ", T, s, w, req)";
    case Collective::ScanExclusive:
      return prefix + "SCAN_EXCLUSIVE_BODY(" + name + ", " + c.op + ", T, s, w, req)";
  }
  return {};
}
}  // namespace

std::string collectiveRows(const std::vector<std::string>& families) {
  std::string out;
  for (const std::string& family :
       std::initializer_list<std::string>{"broadcast", "reduce", "scan", std::string(kWorkGroupFamily)}) {
    if (std::find(families.begin(), families.end(), family) == families.end()) {
      out += "#define __ISG_ROW_" + family + "(name, shape, typeset)\n";
      continue;
    }
    std::set<std::string> seen;  // a name has a row per extension that adds types to it
    for (const table::Function& f : table::functions()) {
      if (f.family != family || !seen.insert(f.name).second) continue;
      // A row without gentype (a work-group vote) is its one definition.
      const std::string params = f.types.empty() ? " " : "(T, s, w, req) ";
      out += "#define __ISG_DEF_" + f.name + params + collectiveBody(family, f.name) + "\n";
    }
    // The work-group rows expand by shape (common/90-work-group.cl), the others by type.
    out += "#define __ISG_ROW_" + family + "(name, shape, typeset) " +
           (family == kWorkGroupFamily ? "__ISG_WG_ROW_##shape(name, typeset)\n"
                                       : "ISG_TYPES_##typeset(__ISG_DEF_##name)\n");
  }
  return out;
}

bool queryVariesInExchangeGroup(std::string_view name, bool workGroup) {
  if (name == "get_local_id" || name == "get_global_id" || name == "get_local_linear_id" ||
      name == "get_global_linear_id" || name == "get_sub_group_local_id")
    return true;
  return workGroup && (name == "get_sub_group_id" || name == "get_sub_group_size");
}

bool resultIsSubGroupUniform(const Builtin& b) {
  return b.family == "reduce" || b.family == "broadcast" || b.family == "vote" || b.workGroup;
}

unsigned exchangeBytes(const Builtin& b, unsigned typeBytes) {
  // Wider values are exchanged 16 bytes per work-item at a time (builtins-cl/local/70-shuffle.cl
  // moves as many components as the slot holds): a 16-wide shuffle in a large work-group would
  // otherwise ask for more local memory than devices have, and 16 bytes keep float4 and
  // smaller in one exchange. shuffle_up/down hand over two values: up to 8 bytes each in one
  // exchange, wider ones in chunks, so that 1,024 work-items of int4 need 32 KiB, not 64 KiB
  // (more than an H100's 48 KiB; Intel's conformance suite launches that).
  typeBytes = std::min(typeBytes, 16u);
  // The functions made for divergent flow exchange in registers, on the strategies that know
  // which work-items reach them, and must not be predicated into flow every work-item runs.
  if (b.needsActiveSet) return 0;
  switch (b.shape) {
    case Shape::I_I:
      return 4;
    case Shape::T_T:
    case Shape::T_TI:  // the rotations run on Intel's shuffle (72-khr-shuffle.cl)
    case Shape::T_TIU:
      return typeBytes;
    case Shape::T_TZ:  // a work-group broadcast
      return typeBytes;
    case Shape::T_TU:  // the khr relative shuffles run on Intel's up/down (72-khr-shuffle.cl)
      if (b.extension != "cl_khr_subgroup_shuffle_relative") return typeBytes;
      [[fallthrough]];
    case Shape::T_TTU:  // shuffle_up/down hand over both the current and the next value
      return std::min(2 * typeBytes, 16u);
    default:
      return 0;
  }
}

const char* const kBuiltinOnlyFeatures[6] = {
    "__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",  "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_work_group_collective_functions", "__opencl_c_int64"};

std::vector<std::string> featuresOfExtensions(const DeviceTraits& traits) {
  std::vector<std::string> out;
  for (const std::string& e : traits.deviceExtensions) {
    const std::vector<std::string>& implied = openclCFeaturesOf(e);
    out.insert(out.end(), implied.begin(), implied.end());
  }
  return out;
}

namespace {
// For SPIR targets Clang's opencl-c-base.h defines every OpenCL C 3.0 feature macro; the driver
// defines only its device's. When the device's features are known, the ones it lacks go (and a
// device without the generic address space gets the macro that says so), but for the features
// that only declare builtins (kBuiltinOnlyFeatures): a user #if on one of those may take the
// other branch than the driver's, a builtin the driver takes must never be undeclared.
std::string featureMacroFixes(const DeviceTraits& traits) {
  if (traits.deviceExtensions.empty() && traits.openclCFeatures.empty()) return {};
  // The feature macros the embedded header defines: read once, it never changes.
  static const std::set<std::string> names = [] {
    std::set<std::string> found;
    const EmbeddedFile* base = findEmbedded("clang/opencl-c-base.h");
    if (!base) return found;
    const std::string_view text = base->text();
    const std::string_view prefix = "#define __opencl_c_";
    for (std::size_t p = text.find(prefix); p != std::string_view::npos; p = text.find(prefix, p + 1)) {
      std::size_t b = p + 8, e = b;
      while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_')) ++e;
      found.emplace(text.substr(b, e - b));
    }
    return found;
  }();
  const auto& have = traits.openclCFeatures;
  auto has = [&have](const std::string& n) { return std::find(have.begin(), have.end(), n) != have.end(); };
  std::string out = "#if __OPENCL_C_VERSION__ >= 300\n";
  auto builtinOnly = [](const std::string& n) {
    return std::find(std::begin(kBuiltinOnlyFeatures), std::end(kBuiltinOnlyFeatures), n) !=
           std::end(kBuiltinOnlyFeatures);
  };
  const bool emulatedReadWrite = emulatesReadWriteImages(traits);
  for (const std::string& n : names)
    if (n != "__opencl_c_named_address_space_builtins" && !has(n) && !builtinOnly(n) &&
        !(emulatedReadWrite && n == "__opencl_c_read_write_images"))
      out += "#undef " + n + "\n";
  if (!has("__opencl_c_generic_address_space"))
    out += "#ifndef __opencl_c_named_address_space_builtins\n"
           "#define __opencl_c_named_address_space_builtins 1\n#endif\n";
  out += "#endif\n";
  // In every OpenCL C version: the analysis may take more than the driver, never less.
  for (const std::string& f : featuresOfExtensions(traits)) out += "#ifndef " + f + "\n#define " + f + " 1\n#endif\n";
  return out;
}
}  // namespace

std::string offeredFeatureMacros(const DeviceTraits& traits) {
  if (!table::featuresOfferedTo(traits.openclCVersion)) return {};
  std::string out;
  for (const std::string& f : table::features()) out += "#ifndef " + f + "\n#define " + f + " 1\n#endif\n";
  return out.empty() ? out : "#if __OPENCL_C_VERSION__ >= 300\n" + out + "#endif\n";
}

std::string declarationsHeader(const DeviceTraits& traits) {
  const char* ovl = "__attribute__((overloadable)) ";
  std::string out =
      "// Generated from builtins.def: the sub-group builtins as the rewritten program will see\n"
      "// them, so that calls resolve to one overload whose types we can size.\n"
      "#include <opencl-c-base.h>\n";
  out += featureMacroFixes(traits);
  out += offeredFeatureMacros(traits);
  if (traits.fp16) out += "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  if (traits.fp64) out += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  const char* cl20 = "#if defined(__OPENCL_CPP_VERSION__) || (__OPENCL_C_VERSION__ >= CL_VERSION_2_0)\n";
  // Image types exist unless OpenCL C 3.0 leaves the (read-write) image feature out.
  const std::string images = "#if __OPENCL_C_VERSION__ < 300 || defined(__opencl_c_images)\n";
  const std::string rwImages =
      "#if (__OPENCL_C_VERSION__ >= 200 && __OPENCL_C_VERSION__ < 300) || "
      "defined(__opencl_c_read_write_images)\n";
  // `ret name(before <access> image2d_t after)` for `first` (read_only or write_only) and for
  // read_write, each under the condition that OpenCL C version has it.
  auto imageForms = [&](const std::string& ret, const std::string& name, const std::string& before,
                        const char* first, const std::string& after) {
    return images + ret + " " + ovl + name + "(" + before + first + " image2d_t" + after +
           ");\n#endif\n" + rwImages + ret + " " + ovl + name + "(" + before +
           "read_write image2d_t" + after + ");\n#endif\n";
  };
  for (const Builtin& b : builtins()) {
    if (!takenOn(b, traits)) continue;
    const std::string& n = b.name;
    switch (b.shape) {
      // Shapes without gentype: their one signature, as the table writes it.
      case Shape::U_V:
      case Shape::I_I:
      case Shape::I_V:
      case Shape::U4_V:
      case Shape::U4_I:
      case Shape::I_U4:
      case Shape::I_U4U:
      case Shape::U_U4: {
        const std::string signature = table::signature(b.shape, n);
        const size_t name = signature.find(' ') + 1;
        out += signature.substr(0, name) + ovl + signature.substr(name) + ";\n";
        break;
      }
      case Shape::V_FLAGS:
        out += "void " + std::string(ovl) + n + "(cl_mem_fence_flags);\n";
        out += cl20;
        out += "void " + std::string(ovl) + n + "(cl_mem_fence_flags, memory_scope);\n#endif\n";
        break;
      case Shape::T_T:
      case Shape::T_TU:
      case Shape::T_TTU:
      case Shape::T_TI:
      case Shape::T_TIU:
      case Shape::T_TZ:
      case Shape::I_T:
        for (const TypeEntry& t : b.types) {
          if (t.requirement == Requirement::fp16 && !traits.fp16) continue;
          if (t.requirement == Requirement::fp64 && !traits.fp64) continue;
          std::string params = t.type;
          if (b.shape == Shape::T_TU) params += ", uint";
          if (b.shape == Shape::T_TTU) params += ", " + t.type + ", uint";
          if (b.shape == Shape::T_TI) params += ", int";
          if (b.shape == Shape::T_TIU) params += ", int, uint";
          if (b.shape == Shape::T_TZ) {  // a local id of 1, 2 or 3 dimensions
            for (const char* ids : {", size_t", ", size_t, size_t", ", size_t, size_t, size_t"})
              out += t.type + " " + ovl + n + "(" + params + ids + ");\n";
            continue;
          }
          out += (b.shape == Shape::I_T ? std::string("int") : t.type) + " " + ovl + n + "(" +
                 params + ");\n";
        }
        break;
      // Exactly the image overloads the library defines (common/80-block.cl, 85-media.cl):
      // reads from read_only and read_write images, writes to write_only and read_write ones.
      // Declaring more would let a program the driver then rejects pass the rewrite.
      case Shape::BlockRead:
        out += vectorType(b.element, b.width) + " " + ovl + n + "(const __global " + b.element + "*);\n";
        out += imageForms(vectorType(b.element, b.width), n, "", "read_only", ", int2");
        break;
      case Shape::BlockWrite: {
        const std::string v = vectorType(b.element, b.width);
        out += "void " + std::string(ovl) + n + "(__global " + b.element + "*, " + v + ");\n";
        out += imageForms("void", n, "", "write_only", ", int2, " + v);
        break;
      }
      case Shape::MediaRead:
        out += imageForms(vectorType(b.element, b.width), n, "int2, int, int, ", "read_only", "");
        break;
      case Shape::MediaWrite:
        out += imageForms("void", n, "int2, int, int, " + vectorType(b.element, b.width) + ", ",
                          "write_only", "");
        break;
    }
  }
  return out;
}

unsigned usualArity(const Builtin& b) {
  switch (b.shape) {
    case Shape::U_V:
    case Shape::I_V:
    case Shape::U4_V:
      return 0;
    case Shape::T_TU:
    case Shape::T_TI:
    case Shape::T_TZ:
    case Shape::I_U4U:
    case Shape::BlockWrite:
      return 2;
    case Shape::T_TTU:
    case Shape::T_TIU:
      return 3;
    case Shape::MediaRead:
      return 4;
    case Shape::MediaWrite:
      return 5;
    default:
      return 1;
  }
}

int imageArgPosition(const Builtin& b, unsigned count) {
  switch (b.shape) {
    case Shape::BlockRead:
    case Shape::BlockWrite:
      return count > 0 ? 0 : -1;
    case Shape::MediaRead:
    case Shape::MediaWrite:
      return count > 0 ? int(count) - 1 : -1;
    default:
      return -1;
  }
}

namespace {
// `#define macro(a, b, ...) __isg_name(ctx, a, b, ...)`; with `factsOf` >= 0, that argument's
// facts last (the argument is the kernel's image parameter, `<name>__isg_facts` its facts).
std::string ctxMacro(const std::string& macro, const std::string& name, unsigned arity,
                     const char* ctx = "__isg_ctx", int factsOf = -1) {
  static const char* const params[] = {"__isg_a", "__isg_b", "__isg_c", "__isg_d", "__isg_e"};
  constexpr unsigned kMost = sizeof params / sizeof params[0];
  std::string list, args;
  for (unsigned i = 0; i < arity && i < kMost; ++i) {
    list += (i ? ", " : "") + std::string(params[i]);
    args += std::string(", ") + params[i];
  }
  if (factsOf >= 0 && unsigned(factsOf) < kMost)
    args += std::string(", ") + params[factsOf] + "##__isg_facts";
  return "#define " + macro + "(" + list + ") __isg_" + name + "(" + ctx + args + ")\n";
}
}  // namespace

std::string builtinMacros(const DeviceTraits& traits, const std::vector<std::string>& skip,
                          const std::vector<std::pair<std::string, unsigned>>& arity,
                          const std::vector<std::pair<std::string, unsigned>>& extra,
                          const std::vector<std::pair<std::string, unsigned>>& converged,
                          const std::vector<std::pair<std::string, unsigned>>& facts,
                          const std::vector<std::pair<std::string, unsigned>>& firstMember) {
  std::string out;
  std::vector<std::string> done;  // a name with rows in several extensions gets one macro
  for (const Builtin& b : builtins()) {
    if (!takenOn(b, traits)) continue;  // the driver's own, if it has them
    if (std::find(skip.begin(), skip.end(), b.name) != skip.end()) continue;
    if (std::find(done.begin(), done.end(), b.name) != done.end()) continue;
    done.push_back(b.name);
    unsigned n = usualArity(b);
    for (const auto& [name, count] : arity)
      if (name == b.name) n = count;
    out += ctxMacro(b.name, b.name, n);
  }
  for (const auto& [name, count] : extra)
    out += ctxMacro("__ISG_A" + std::to_string(count) + "_" + name, name, count);
  for (const auto& [name, count] : converged)
    out += ctxMacro("__ISG_CV" + std::to_string(count) + "_" + name, name, count, "__isg_cctx");
  for (const auto& [name, count] : facts)
    if (const Builtin* b = findBuiltin(name))
      out += ctxMacro("__ISG_IF" + std::to_string(count) + "_" + name, name, count, "__isg_ctx",
                      imageArgPosition(*b, count));
  for (const auto& [name, count] : firstMember)
    if (const Builtin* b = findBuiltin(name)) {
      const std::string pointer = b->shape == Shape::BlockWrite ? "__isg_first_member_wr" : "__isg_first_member_rd";
      out += "#define __ISG_L0_" + name + "(__isg_a" + (count > 1 ? ", __isg_b" : "") + ") __isg_" + name +
             "(__isg_ctx, " + pointer + "(__isg_ctx, __isg_a)" + (count > 1 ? ", __isg_b" : "") + ")\n";
    }
  return out;
}

}  // namespace isg::detail

namespace isg {

const std::vector<std::string>& openclCFeaturesOf(std::string_view extension) {
  static const std::vector<std::string> kNone;
  static const std::vector<std::string> kIntegerDot = {"__opencl_c_integer_dot_product_input_4x8bit",
                                                       "__opencl_c_integer_dot_product_input_4x8bit_packed"};
  return extension == "cl_khr_integer_dot_product" ? kIntegerDot : kNone;
}

}  // namespace isg
