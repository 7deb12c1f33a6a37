// SPDX-License-Identifier: MIT
// builtins-cl/builtins.def seen from C++: the rows the end-to-end tests turn into cases, so the
// case list always follows the table and is never written by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "builtins.def"

namespace isge2e {

struct TypeRow {
  std::string type;    // OpenCL C spelling: "float3"
  std::string scalar;  // "float"
  unsigned width = 1;
  std::string req;     // none | fp16 | fp64
};

struct FuncRow {
  std::string name, family, extension, shape, typeset;
  std::vector<TypeRow> types;  // empty for shapes without gentype
};

struct BlockRow {
  std::string read, write, extension, element;
  unsigned width = 1;
};

inline const std::vector<FuncRow>& funcRows() {
  static const std::vector<FuncRow> rows = [] {
    std::vector<FuncRow> r;
#define ISGE2E_TYPE(type, scalar, width, req) TypeRow{#type, #scalar, width, #req},
#define ISGE2E_FUNC(name, family, ext, shape, typeset) \
  r.push_back(FuncRow{#name, #family, #ext, #shape, #typeset, {ISG_TYPES_##typeset(ISGE2E_TYPE)}});
    ISG_FUNCS(ISGE2E_FUNC)
#undef ISGE2E_FUNC
#undef ISGE2E_TYPE
    return r;
  }();
  return rows;
}

inline const std::vector<BlockRow>& blockRows() {
  static const std::vector<BlockRow> rows = [] {
    std::vector<BlockRow> r;
#define ISGE2E_BLOCK(rd, wr, ext, element, width) r.push_back(BlockRow{#rd, #wr, #ext, #element, width});
    ISG_BLOCKS(ISGE2E_BLOCK)
#undef ISGE2E_BLOCK
    return r;
  }();
  return rows;
}

inline unsigned scalarBytes(const std::string& s) {
  if (s == "char" || s == "uchar") return 1;
  if (s == "short" || s == "ushort" || s == "half") return 2;
  if (s == "long" || s == "ulong" || s == "double") return 8;
  return 4;
}
inline bool scalarIsFloat(const std::string& s) {
  return s == "half" || s == "float" || s == "double";
}
inline bool scalarIsSigned(const std::string& s) {
  return s == "char" || s == "short" || s == "int" || s == "long";
}
// sizeof in OpenCL C: 3-component vectors occupy 4 components.
inline unsigned storageBytes(const TypeRow& t) {
  return scalarBytes(t.scalar) * (t.width == 3 ? 4 : t.width);
}

}  // namespace isge2e
