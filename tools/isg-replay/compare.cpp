// SPDX-License-Identifier: MIT
#include "compare.h"

#include <CL/cl.h>

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

namespace isg::replay {

size_t elemSize(Elem e) {
  switch (e) {
    case Elem::I16:
    case Elem::U16:
    case Elem::F16:
      return 2;
    case Elem::I32:
    case Elem::U32:
    case Elem::F32:
      return 4;
    case Elem::I64:
    case Elem::U64:
    case Elem::F64:
      return 8;
    default:
      return 1;
  }
}

const char* elemName(Elem e) {
  switch (e) {
    case Elem::I8:
      return "char";
    case Elem::U8:
      return "uchar";
    case Elem::I16:
      return "short";
    case Elem::U16:
      return "ushort";
    case Elem::I32:
      return "int";
    case Elem::U32:
      return "uint";
    case Elem::I64:
      return "long";
    case Elem::U64:
      return "ulong";
    case Elem::F16:
      return "half";
    case Elem::F32:
      return "float";
    case Elem::F64:
      return "double";
    default:
      return "byte";
  }
}

bool isFloat(Elem e) { return e == Elem::F16 || e == Elem::F32 || e == Elem::F64; }

Elem elemFromTypeName(const std::string& typeName) {
  std::string t = typeName.substr(0, typeName.find('*'));
  std::vector<std::string> words;
  std::string word;
  for (char c : t + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  bool unsignedWord = false;
  std::string base;
  for (const std::string& w : words) {
    if (w == "const" || w == "volatile" || w == "restrict" || w == "global" || w == "__global" ||
        w == "constant" || w == "__constant" || w == "signed")
      continue;
    if (w == "unsigned") {
      unsignedWord = true;
      continue;
    }
    base = w;
  }
  if (base.empty() && unsignedWord) base = "int";
  // Vector types: the width does not change the element.
  for (const char* width : {"16", "8", "4", "3", "2"}) {
    const size_t n = std::strlen(width);
    if (base.size() > n && base.compare(base.size() - n, n, width) == 0 &&
        !std::isdigit(static_cast<unsigned char>(base[base.size() - n - 1]))) {
      base.resize(base.size() - n);
      break;
    }
  }
  if (unsignedWord && base.size() && base[0] != 'u') base = "u" + base;
  static const std::map<std::string, Elem> kTypes = {
      {"char", Elem::I8},    {"uchar", Elem::U8},   {"bool", Elem::U8},  {"short", Elem::I16},
      {"ushort", Elem::U16}, {"int", Elem::I32},    {"uint", Elem::U32}, {"long", Elem::I64},
      {"ulong", Elem::U64},  {"size_t", Elem::U64}, {"half", Elem::F16}, {"float", Elem::F32},
      {"double", Elem::F64}};
  auto it = kTypes.find(base);
  return it == kTypes.end() ? Elem::Bytes : it->second;
}

Elem elemFromChannelType(std::uint32_t type) {
  switch (type) {
    case CL_SNORM_INT8:
    case CL_SIGNED_INT8:
      return Elem::I8;
    case CL_UNORM_INT8:
    case CL_UNSIGNED_INT8:
      return Elem::U8;
    case CL_SNORM_INT16:
    case CL_SIGNED_INT16:
      return Elem::I16;
    case CL_UNORM_INT16:
    case CL_UNSIGNED_INT16:
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555:
      return Elem::U16;
    case CL_SIGNED_INT32:
      return Elem::I32;
    case CL_UNSIGNED_INT32:
    case CL_UNORM_INT_101010:
      return Elem::U32;
    case CL_HALF_FLOAT:
      return Elem::F16;
    case CL_FLOAT:
      return Elem::F32;
    default:
      return Elem::Bytes;
  }
}

namespace {

double halfToDouble(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0)
    v = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    v = mantissa ? NAN : INFINITY;
  else
    v = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -v : v;
}

}  // namespace

Element load(const unsigned char* p, Elem e) {
  Element out;
  std::memcpy(&out.bits, p, elemSize(e));  // little-endian hosts: the low bytes
  switch (e) {
    case Elem::I8:
      out.value = static_cast<std::int8_t>(out.bits);
      break;
    case Elem::I16:
      out.value = static_cast<std::int16_t>(out.bits);
      break;
    case Elem::I32:
      out.value = static_cast<std::int32_t>(out.bits);
      break;
    case Elem::I64:
      out.value = static_cast<double>(static_cast<std::int64_t>(out.bits));
      break;
    case Elem::F16:
      out.value = halfToDouble(static_cast<std::uint16_t>(out.bits));
      break;
    case Elem::F32: {
      float f;
      std::memcpy(&f, p, 4);
      out.value = f;
      break;
    }
    case Elem::F64:
      std::memcpy(&out.value, p, 8);
      break;
    default:
      out.value = static_cast<double>(out.bits);
      break;
  }
  return out;
}

std::uint64_t ulpDistance(std::uint64_t a, std::uint64_t b, Elem e) {
  const int bits = static_cast<int>(elemSize(e) * 8);
  const std::uint64_t signBit = std::uint64_t{1} << (bits - 1);
  auto ordered = [&](std::uint64_t v) -> long double {
    // Sign-magnitude to a signed line: -0 and +0 both map to 0.
    const std::uint64_t magnitude = v & (signBit - 1);
    return (v & signBit) ? -static_cast<long double>(magnitude)
                         : static_cast<long double>(magnitude);
  };
  long double d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

namespace {

std::string show(const Element& x, Elem e) {
  char text[96];
  if (isFloat(e))
    std::snprintf(text, sizeof text, "%.*g (0x%0*" PRIx64 ")", e == Elem::F64 ? 17 : 9, x.value,
                  static_cast<int>(elemSize(e) * 2), x.bits);
  else if (e == Elem::Bytes)
    std::snprintf(text, sizeof text, "0x%02" PRIx64, x.bits);
  else
    std::snprintf(text, sizeof text, "%.0f", x.value);
  return text;
}

}  // namespace

Comparison compare(const unsigned char* captured, const unsigned char* replayed, size_t bytes,
                   Elem e, const Tolerance& t) {
  constexpr size_t kShown = 8;
  Comparison c;
  const size_t step = elemSize(e);
  c.elements = bytes / step;
  // A size that is not a whole number of elements leaves a tail, compared bytewise.
  const size_t tail = bytes % step;
  for (size_t i = 0; i < c.elements + tail; ++i) {
    const bool inTail = i >= c.elements;
    const Elem kind = inTail ? Elem::U8 : e;
    const size_t offset = inTail ? c.elements * step + (i - c.elements) : i * step;
    const Element a = load(captured + offset, kind), b = load(replayed + offset, kind);
    if (a.bits == b.bits) continue;
    double error = std::fabs(a.value - b.value);
    std::uint64_t ulp = 0;
    bool ok = false;
    if (isFloat(kind)) {
      const bool aNan = std::isnan(a.value), bNan = std::isnan(b.value);
      if (aNan && bNan) continue;  // NaN payloads are not results
      if (aNan || bNan) {
        error = INFINITY;
        ulp = UINT64_MAX;
      } else {
        ulp = ulpDistance(a.bits, b.bits, kind);
        ok = ulp <= t.ulp || error <= t.atol + t.rtol * std::fabs(a.value);
      }
    }
    if (ok) {
      ++c.tolerated;
    } else {
      ++c.mismatches;
      if (c.first.size() < kShown)
        c.first.push_back(
            "[" + std::to_string(i) + "] captured " + show(a, kind) + "  replayed " +
            show(b, kind) +
            (isFloat(kind) && ulp != UINT64_MAX ? "  (" + std::to_string(ulp) + " ulp)" : ""));
    }
    if (error > c.largestError || (error == c.largestError && ulp > c.largestUlp)) {
      c.largestError = error;
      c.largestUlp = ulp;
      c.largestAt = i;
    }
  }
  return c;
}

DefaultBound defaultBound(Elem e) {
  // docs/compare.md, "Tolerance": rtol about 170 unit roundoffs of float (9,000 of double, 8 of
  // half), and an absolute floor of the same fraction of the argument's largest |output|, for
  // results that cancel.
  switch (e) {
    case Elem::F16:
      return {2, 4e-3, 4e-3};
    case Elem::F32:
      return {4, 1e-5, 1e-5};
    case Elem::F64:
      return {4, 1e-12, 1e-12};
    default:
      return {0, 0, 0};
  }
}

double largestMagnitude(const unsigned char* data, size_t bytes, Elem e) {
  if (!isFloat(e)) return 0;
  double largest = 0;
  const size_t step = elemSize(e);
  for (size_t at = 0; at + step <= bytes; at += step) {
    const double v = std::fabs(load(data + at, e).value);
    if (std::isfinite(v) && v > largest) largest = v;
  }
  return largest;
}

Tolerance toleranceFor(const ToleranceSetting& s, Elem e, const unsigned char* captured,
                       size_t bytes) {
  if (!isFloat(e) || s.mode == ToleranceSetting::Mode::Exact) return {};
  if (s.mode == ToleranceSetting::Mode::Given) return s.given;
  const DefaultBound b = defaultBound(e);
  return {b.ulp, b.rtol, b.floor * largestMagnitude(captured, bytes, e)};
}

std::string describe(const Tolerance& t) {
  char text[128];
  std::snprintf(text, sizeof text, "ulp <= %" PRIu64 " or |diff| <= %g + %g*|captured|", t.ulp,
                t.atol, t.rtol);
  return text;
}

std::string describe(const ToleranceSetting& s) {
  switch (s.mode) {
    case ToleranceSetting::Mode::Exact:
      return "exact (--exact): every element bit for bit";
    case ToleranceSetting::Mode::Given:
      return "floats: " + describe(s.given) + "; integers exact";
    default:
      break;
  }
  std::string out = "default (sums in another order):";
  for (Elem e : {Elem::F32, Elem::F64, Elem::F16}) {
    const DefaultBound b = defaultBound(e);
    char text[128];
    std::snprintf(text, sizeof text, " %s ulp <= %" PRIu64 " or |diff| <= %g*|captured| + %g*max|captured|;",
                  elemName(e), b.ulp, b.rtol, b.floor);
    out += text;
  }
  return out + " integers exact";
}

}  // namespace isg::replay
