// SPDX-License-Identifier: MIT
// How isg-replay decides that a replayed output matches the captured one: the element type an
// argument's type name or an image's channel type implies, elements decoded from raw bytes, and
// the comparison (integers bit-exact, floats within ulp or an absolute + relative tolerance).
// Host-only, no OpenCL call: tests/tools checks it without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace isg::replay {

enum class Elem { Bytes, I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64 };

size_t elemSize(Elem e);
const char* elemName(Elem e);
bool isFloat(Elem e);

// "const float4*", "__global uint*", "unsigned int*" -> the scalar element; Bytes for structs,
// typedefs and anything else the name does not make plain.
Elem elemFromTypeName(const std::string& typeName);
// An image's cl_channel_type -> the element its texels are stored in (a packed format as its
// whole word); Bytes for any other.
Elem elemFromChannelType(std::uint32_t type);

struct Element {
  std::uint64_t bits = 0;  // raw, zero-extended
  double value = 0;        // as a number (floats and integers)
};

// The element at p (elemSize(e) bytes, little-endian).
Element load(const unsigned char* p, Elem e);

// Distance in representable values: floats mapped onto a monotonic integer line.
std::uint64_t ulpDistance(std::uint64_t a, std::uint64_t b, Elem e);

// A float element matches when bit-identical, within `ulp`, or within atol + rtol*|captured|.
struct Tolerance {
  std::uint64_t ulp = 0;
  double rtol = 0, atol = 0;
};

// What the command line asked for: the default model, bit-for-bit (--exact), or the bounds
// --ulp/--rtol/--atol give (those not given are 0).
struct ToleranceSetting {
  enum class Mode { Default, Exact, Given } mode = Mode::Default;
  Tolerance given;
};

// The default model, per float type, for results computed in another order (docs/compare.md,
// "Tolerance"): |diff| <= rtol*|captured| + floor*max|captured| or within ulp, where max is the
// largest finite magnitude among the captured elements of the same argument.
struct DefaultBound {
  std::uint64_t ulp;
  double rtol, floor;
};
DefaultBound defaultBound(Elem e);

// The largest finite |value| among the elements (0 for none or a non-float type).
double largestMagnitude(const unsigned char* data, size_t bytes, Elem e);

// The bound one argument is compared under: the setting resolved for its element type and its
// captured values. Integers and bytes are always exact.
Tolerance toleranceFor(const ToleranceSetting& s, Elem e, const unsigned char* captured,
                       size_t bytes);

// "ulp <= 4 or |diff| <= 1e-05*|captured| + 3.2e-06": the bound, as the report prints it.
std::string describe(const Tolerance& t);
// The setting in one line, for the report's header.
std::string describe(const ToleranceSetting& s);

struct Comparison {
  size_t elements = 0, mismatches = 0, tolerated = 0;
  double largestError = 0;
  std::uint64_t largestUlp = 0;
  size_t largestAt = 0;
  std::vector<std::string> first;  // the first few mismatches, printed
};

Comparison compare(const unsigned char* captured, const unsigned char* replayed, size_t bytes,
                   Elem e, const Tolerance& t);

}  // namespace isg::replay
