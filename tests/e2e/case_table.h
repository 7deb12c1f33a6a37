// SPDX-License-Identifier: MIT
// The rows the end-to-end tests turn into cases, as strings, from builtins-cl/builtin_table.h:
// the case list always follows the table and is never written by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "builtin_table.h"

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
  // Of an extension made for divergent flow (builtins.def, `nonuniform`): a function of the
  // members that reach the call.
  bool activeMembers = false;
};

struct BlockRow {
  std::string read, write, extension, element;
  unsigned width = 1;
};

inline const std::vector<FuncRow>& funcRows() {
  static const std::vector<FuncRow> rows = [] {
    std::vector<FuncRow> r;
    for (const isg::table::Function& f : isg::table::functions()) {
      FuncRow row{f.name, f.family, f.extension, isg::table::shapeName(f.shape), f.typeset, {}};
      const isg::table::Extension* e = isg::table::extensionNamed(f.extension);
      row.activeMembers = e && e->needsActiveSet;
      for (const isg::table::TypeEntry& t : f.types)
        row.types.push_back(TypeRow{t.type, t.scalar, t.width, isg::table::requirementName(t.requirement)});
      r.push_back(std::move(row));
    }
    return r;
  }();
  return rows;
}

inline std::vector<BlockRow> readWriteRows(const std::vector<isg::table::Block>& table);
inline const std::vector<BlockRow>& blockRows() {
  static const std::vector<BlockRow> rows = readWriteRows(isg::table::blocks());
  return rows;
}

// ISG_MEDIA rows have the columns of ISG_BLOCK rows.
using MediaRow = BlockRow;

inline std::vector<BlockRow> readWriteRows(const std::vector<isg::table::Block>& table) {
  std::vector<BlockRow> r;
  for (const isg::table::Block& b : table)
    r.push_back(BlockRow{b.read, b.write, b.extension, b.element, b.width});
  return r;
}

inline const std::vector<MediaRow>& mediaRows() {
  static const std::vector<MediaRow> rows = readWriteRows(isg::table::mediaBlocks());
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
