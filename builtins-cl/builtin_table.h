// SPDX-License-Identifier: MIT
// builtins.def seen from C++: the one expansion of the table that the rewriter, the layer's
// extension list, the doc generator, the tests and the benchmarks all read. Header-only and
// standard-library-only, so each of them includes it without linking the rewriter.
#pragma once

#include <string>
#include <vector>

#include "builtins.def"

namespace isg::table {

// ISG_FUNC shapes (builtins.def says what each means); the block and media shapes are the read
// and write halves of an ISG_BLOCK / ISG_MEDIA row, for views that list them beside the others.
enum class Shape {
  U_V,
  V_FLAGS,
  I_I,
  T_T,
  T_TU,
  T_TTU,
  T_TI,
  T_TIU,
  I_V,
  I_T,
  U4_I,
  I_U4,
  I_U4U,
  U_U4,
  U4_V,
  T_TZ,
  BlockRead,
  BlockWrite,
  MediaRead,
  MediaWrite
};
// Whether a shape's first parameter and result are the row's gentype T.
inline bool takesGentype(Shape s) {
  return s == Shape::T_T || s == Shape::T_TU || s == Shape::T_TTU || s == Shape::T_TI ||
         s == Shape::T_TIU || s == Shape::T_TZ;
}
// Whether a shape's first parameter is the row's gentype T (whatever it returns).
inline bool gentypeParameter(Shape s) { return takesGentype(s) || s == Shape::I_T; }
// int64: 64-bit integers, optional only in the embedded profile (the library guards them).
enum class Requirement { none, fp16, fp64, int64 };

inline const char* shapeName(Shape s) {
  switch (s) {
    case Shape::U_V: return "U_V";
    case Shape::V_FLAGS: return "V_FLAGS";
    case Shape::I_I: return "I_I";
    case Shape::T_T: return "T_T";
    case Shape::T_TU: return "T_TU";
    case Shape::T_TTU: return "T_TTU";
    case Shape::T_TI: return "T_TI";
    case Shape::T_TIU: return "T_TIU";
    case Shape::I_V: return "I_V";
    case Shape::I_T: return "I_T";
    case Shape::U4_I: return "U4_I";
    case Shape::I_U4: return "I_U4";
    case Shape::I_U4U: return "I_U4U";
    case Shape::U_U4: return "U_U4";
    case Shape::U4_V: return "U4_V";
    case Shape::T_TZ: return "T_TZ";
    case Shape::BlockRead: return "BLOCK_READ";
    case Shape::BlockWrite: return "BLOCK_WRITE";
    case Shape::MediaRead: return "MEDIA_READ";
    case Shape::MediaWrite: return "MEDIA_WRITE";
  }
  return "";
}

inline const char* requirementName(Requirement r) {
  switch (r) {
    case Requirement::none: return "none";
    case Requirement::fp16: return "fp16";
    case Requirement::fp64: return "fp64";
    case Requirement::int64: return "int64";
  }
  return "";
}

struct TypeEntry {
  std::string type;    // "float4"
  std::string scalar;  // "float"
  unsigned width = 1;
  Requirement requirement = Requirement::none;
};

// An ISG_FUNC row.
struct Function {
  std::string name, family, extension;
  Shape shape = Shape::U_V;
  std::string typeset;           // the ISG_TYPES_<set> name, NONE for shapes without gentype
  std::vector<TypeEntry> types;  // that set's types
};

// An ISG_BLOCK row: a read and a write of `element` x `width`.
struct Block {
  std::string read, write, extension, element;
  unsigned width = 1;
};

// An ISG_MEDIA row: a media block read and write of `element` x `width`.
using Media = Block;

// Table 6.X of cl_intel_media_block_io: the tallest region for a width in bytes, 0 when the
// width is not allowed.
inline unsigned mediaMaxHeight(unsigned widthBytes) { return ISG_MEDIA_MAX_HEIGHT(widthBytes); }
// Images created from buffers: "The maximum height is further restricted to 16 or less."
constexpr unsigned kMediaMaxHeightImageFromBuffer = 16;

// Whether a device that compiles OpenCL C up to `openclC` (120, 200, 300) gets ISG_FEATURES and
// the extensions built on them (Extension::needsSubgroups).
inline bool featuresOfferedTo(unsigned openclC) { return openclC >= 300; }

struct Extension {
  std::string name;
  unsigned major = 0, minor = 0, patch = 0;
  bool needsImages = false;  // every function takes an image: only devices with images have it
  bool needsSpirv = false;   // an API extension of programs from SPIR-V (never an OpenCL C macro)
  bool needsSubgroups = false;  // a cl_khr_subgroup_* extension: where ISG_FEATURES are offered
  bool needsActiveSet = false;  // `nonuniform`: also where the strategy knows the active set
  // Whether a device gets the extension: advertised by the layer (`spirv`: the layer builds
  // programs from SPIR-V for it; `openclC`: the highest OpenCL C it compiles, 120/200/300;
  // `activeSet`: its strategy knows which work-items reach a call, isg/strategies.def) and,
  // for OpenCL C extensions, its macro defined for the parse and the driver (asked with
  // spirv = false).
  bool offeredTo(bool deviceHasImages, bool spirv, unsigned openclC, bool activeSet) const {
    return (!needsImages || deviceHasImages) && (!needsSpirv || spirv) &&
           (!needsSubgroups || featuresOfferedTo(openclC)) && (!needsActiveSet || activeSet);
  }
};

inline const std::vector<Function>& functions() {
  static const std::vector<Function> rows = [] {
    std::vector<Function> r;
#define ISG_TABLE_TYPE(type, scalar, width, req) TypeEntry{#type, #scalar, width, Requirement::req},
#define ISG_TABLE_FUNC(name, family, ext, shape, typeset) \
  r.push_back(Function{#name, #family, #ext, Shape::shape, #typeset, {ISG_TYPES_##typeset(ISG_TABLE_TYPE)}});
    ISG_FUNCS(ISG_TABLE_FUNC)
#undef ISG_TABLE_FUNC
#undef ISG_TABLE_TYPE
    return r;
  }();
  return rows;
}

// ISG_BLOCK and ISG_MEDIA rows have the same columns.
#define ISG_TABLE_READ_WRITE(rd, wr, ext, element, width) \
  r.push_back(Block{#rd, #wr, #ext, #element, width});
inline const std::vector<Block>& blocks() {
  static const std::vector<Block> rows = [] {
    std::vector<Block> r;
    ISG_BLOCKS(ISG_TABLE_READ_WRITE)
    return r;
  }();
  return rows;
}
inline const std::vector<Media>& mediaBlocks() {
  static const std::vector<Media> rows = [] {
    std::vector<Media> r;
    ISG_MEDIA_BLOCKS(ISG_TABLE_READ_WRITE)
    return r;
  }();
  return rows;
}
#undef ISG_TABLE_READ_WRITE

// ISG_FEATURES: the OpenCL C 3.0 features the layer adds where the device compiles OpenCL C 3.0.
inline const std::vector<std::string>& features() {
  static const std::vector<std::string> rows = {
#define ISG_TABLE_FEATURE(name) #name,
      ISG_FEATURES(ISG_TABLE_FEATURE)
#undef ISG_TABLE_FEATURE
  };
  return rows;
}

// In advertising order.
inline const std::vector<Extension>& extensions() {
  static const std::vector<Extension> rows = [] {
    std::vector<Extension> r;
#define ISG_TABLE_EXTENSION(name, major, minor, patch, needs)                                      \
  r.push_back(Extension{#name, major, minor, patch,                                                \
                        std::string(#needs).find("images") != std::string::npos,                   \
                        std::string(#needs).rfind("spirv", 0) == 0,                                \
                        std::string(#needs) == "subgroups" || std::string(#needs) == "nonuniform", \
                        std::string(#needs) == "nonuniform"});
    ISG_EXTENSIONS(ISG_TABLE_EXTENSION)
#undef ISG_TABLE_EXTENSION
    return r;
  }();
  return rows;
}

// The ISG_EXTENSION row of `name` (nullptr: none).
inline const Extension* extensionNamed(const std::string& name) {
  for (const Extension& e : extensions())
    if (e.name == name) return &e;
  return nullptr;
}

// A builtin's signature as the spec writes it (T: one of the row's types; `element` and `width`:
// a block or media row's element type and vector width). docs/builtins.md shows it, and the
// rewriter's note under a call no overload matches.
inline std::string signature(Shape shape, const std::string& name, const std::string& element = "",
                             unsigned width = 1) {
  const std::string v = element + (width > 1 ? std::to_string(width) : "");
  switch (shape) {
    case Shape::U_V: return "uint " + name + "(void)";
    case Shape::V_FLAGS: return "void " + name + "(cl_mem_fence_flags [, memory_scope])";
    case Shape::I_I: return "int " + name + "(int)";
    case Shape::T_T: return "T " + name + "(T)";
    case Shape::T_TU: return "T " + name + "(T, uint)";
    case Shape::T_TTU: return "T " + name + "(T, T, uint)";
    case Shape::T_TI: return "T " + name + "(T, int)";
    case Shape::T_TIU: return "T " + name + "(T, int, uint)";
    case Shape::I_V: return "int " + name + "(void)";
    case Shape::I_T: return "int " + name + "(T)";
    case Shape::U4_I: return "uint4 " + name + "(int)";
    case Shape::I_U4: return "int " + name + "(uint4)";
    case Shape::I_U4U: return "int " + name + "(uint4, uint)";
    case Shape::U_U4: return "uint " + name + "(uint4)";
    case Shape::U4_V: return "uint4 " + name + "(void)";
    case Shape::T_TZ: return "T " + name + "(T, size_t [, size_t [, size_t]])";
    case Shape::BlockRead:
      return v + " " + name + "(const __global " + element +
             "*), (read_only/read_write image2d_t, int2 byte_coord)";
    case Shape::BlockWrite:
      return "void " + name + "(__global " + element + "*, " + v +
             "), (write_only/read_write image2d_t, int2 byte_coord, " + v + ")";
    case Shape::MediaRead:
      return v + " " + name + "(int2 src_byte_offset, int width, int height, read_only/read_write image2d_t)";
    case Shape::MediaWrite:
      return "void " + name + "(int2 src_byte_offset, int width, int height, " + v +
             " texels, write_only/read_write image2d_t)";
  }
  return name;
}

}  // namespace isg::table
