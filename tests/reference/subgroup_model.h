// SPDX-License-Identifier: MIT
// The host reference model ("oracle") of the sub-group builtins, written from the text of
// cl_intel_subgroups (rev 8) and the cl_khr_subgroups function descriptions, never from the
// OpenCL C library it checks. Everything here works on one work-group at a time, identified by
// its local size; work-items are named by their linear local id (x fastest), which is also how
// the project lays out sub-groups: runs of S consecutive linear ids, the last possibly partial.
//
// Where the spec leaves a result undefined the model says so (std::nullopt), and tests must
// treat such a work-item's result as "anything".
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace isgref {

// ---- layout ----------------------------------------------------------------------------------

struct WorkGroup {
  uint32_t S = 16;                   // max_sub_group_size
  uint32_t local[3] = {1, 1, 1};     // local work size

  uint32_t size() const { return local[0] * local[1] * local[2]; }
  uint32_t linearId(uint32_t x, uint32_t y, uint32_t z) const {
    return x + local[0] * (y + local[1] * z);
  }
  uint32_t numSubGroups() const { return (size() + S - 1) / S; }
  uint32_t subGroupId(uint32_t lid) const { return lid / S; }
  uint32_t subGroupLocalId(uint32_t lid) const { return lid % S; }
  uint32_t subGroupBase(uint32_t lid) const { return subGroupId(lid) * S; }
  // "all sub-groups within a work-group will be the same size, apart from the sub-group with
  // the maximum index, which may be smaller"
  uint32_t subGroupSize(uint32_t lid) const { return std::min(S, size() - subGroupBase(lid)); }
  bool partial(uint32_t lid) const { return subGroupSize(lid) < S; }
  // Uniform work-groups only (OpenCL 1.2 and this test suite): equals get_num_sub_groups.
  uint32_t enqueuedNumSubGroups() const { return numSubGroups(); }
  uint32_t maxSubGroupSize() const { return S; }
  // The linear id of member `m` of lid's sub-group, if that member exists.
  std::optional<uint32_t> member(uint32_t lid, uint32_t m) const {
    if (m >= subGroupSize(lid)) return std::nullopt;
    return subGroupBase(lid) + m;
  }
};

// ---- shuffles: which work-item's which source a work-item receives ---------------------------

struct Source {
  uint32_t lid;    // the work-item whose data is returned
  unsigned which;  // 0: first data argument (data / current / previous), 1: second (next / current)
};

// intel_sub_group_shuffle: "the value of data for the work item identified by
// sub_group_local_id"; out-of-range ids have no defined behaviour.
inline std::optional<Source> shuffle(const WorkGroup& g, uint32_t lid, uint32_t c) {
  auto m = g.member(lid, c);
  if (!m) return std::nullopt;
  return Source{*m, 0};
}

// intel_sub_group_shuffle_down(current, next, delta): unsigned index = sglid + delta;
// < max_sub_group_size: current of that member; < 2*max: next of (index - max); else undefined.
inline std::optional<Source> shuffleDown(const WorkGroup& g, uint32_t lid, uint32_t delta) {
  uint64_t i = uint64_t(g.subGroupLocalId(lid)) + delta;
  const uint64_t S = g.maxSubGroupSize();
  unsigned which = 0;
  if (i >= S && i < 2 * S) {
    i -= S;
    which = 1;
  } else if (i >= 2 * S) {
    return std::nullopt;
  }
  auto m = g.member(lid, uint32_t(i));
  if (!m) return std::nullopt;  // a member a partial sub-group does not have
  return Source{*m, which};
}

// intel_sub_group_shuffle_up(previous, current, delta): signed index = sglid - delta;
// [0, max): current of that member; [-max, 0): previous of (index + max); else undefined.
inline std::optional<Source> shuffleUp(const WorkGroup& g, uint32_t lid, uint32_t delta) {
  int64_t i = int64_t(g.subGroupLocalId(lid)) - int64_t(delta);
  const int64_t S = g.maxSubGroupSize();
  unsigned which = 1;
  if (i < 0 && i >= -S) {
    i += S;
    which = 0;
  } else if (i < -S || i >= S) {
    return std::nullopt;
  }
  auto m = g.member(lid, uint32_t(i));
  if (!m) return std::nullopt;
  return Source{*m, which};
}

// sub_group_shuffle_down and _up (cl_khr_subgroup_shuffle_relative): one value, the member
// sglid + delta (sglid - delta), undefined where that is not a member of the sub-group.
inline std::optional<Source> khrShuffleDown(const WorkGroup& g, uint32_t lid, uint32_t delta) {
  std::optional<Source> s = shuffleDown(g, lid, delta);
  if (!s || s->which != 0) return std::nullopt;
  return s;
}
inline std::optional<Source> khrShuffleUp(const WorkGroup& g, uint32_t lid, uint32_t delta) {
  std::optional<Source> s = shuffleUp(g, lid, delta);
  if (!s || s->which != 1) return std::nullopt;
  return Source{s->lid, 0};
}

// intel_sub_group_shuffle_xor: the member sglid ^ value; "greater than max_sub_group_size" is
// out of range, and an index naming no member has no data either.
inline std::optional<Source> shuffleXor(const WorkGroup& g, uint32_t lid, uint32_t value) {
  uint32_t i = g.subGroupLocalId(lid) ^ value;
  auto m = g.member(lid, i);
  if (!m) return std::nullopt;
  return Source{*m, 0};
}

// sub_group_rotate (cl_khr_subgroup_rotate): the member (sglid + delta) mod the maximum
// sub-group size, delta taken as unsigned (SPIR-V's OpGroupNonUniformRotateKHR in kernels);
// sub_group_clustered_rotate: the same within the sglid's cluster of `cluster` members (a power
// of two, at most the maximum size). A member a partial sub-group lacks has no data.
inline std::optional<Source> rotate(const WorkGroup& g, uint32_t lid, int32_t delta,
                                    uint32_t cluster) {
  const uint32_t sglid = g.subGroupLocalId(lid);
  const uint32_t i = sglid / cluster * cluster + (sglid + uint32_t(delta)) % cluster;
  auto m = g.member(lid, i);
  if (!m) return std::nullopt;
  return Source{*m, 0};
}

// sub_group_broadcast: the member identified by sub_group_local_id (which must be uniform
// across the sub-group and below the sub-group size).
inline std::optional<Source> broadcast(const WorkGroup& g, uint32_t lid, uint32_t id) {
  return shuffle(g, lid, id);
}

// ---- votes -----------------------------------------------------------------------------------

// sub_group_all / sub_group_any return "a non-zero value" or zero: the model gives the truth.
inline bool voteAll(const WorkGroup& g, uint32_t lid, const std::vector<int32_t>& pred) {
  for (uint32_t m = 0; m < g.subGroupSize(lid); ++m)
    if (pred[g.subGroupBase(lid) + m] == 0) return false;
  return true;
}
inline bool voteAny(const WorkGroup& g, uint32_t lid, const std::vector<int32_t>& pred) {
  for (uint32_t m = 0; m < g.subGroupSize(lid); ++m)
    if (pred[g.subGroupBase(lid) + m] != 0) return true;
  return false;
}

// ---- reductions and scans --------------------------------------------------------------------

enum class Op { Add, Min, Max };
enum class Kind { Reduce, ScanInclusive, ScanExclusive };

// Identities from the cl_khr_subgroups text: add 0; min the type's maximum (+INF for floating
// point); max the type's minimum (-INF).
template <class T>
T identity(Op op) {
  if (op == Op::Add) return T(0);
  if constexpr (std::is_floating_point_v<T>)
    return op == Op::Min ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  else
    return op == Op::Min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
}

// Integers: exact, add wraps modulo 2^bits (computed unsigned, so no host UB).
template <class T>
T combineInt(Op op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case Op::Add: return T(U(U(a) + U(b)));
    case Op::Min: return std::min(a, b);
    default: return std::max(a, b);
  }
}

// The work-items whose x takes part in lid's result, in scan order (increasing local id).
inline std::vector<uint32_t> operands(const WorkGroup& g, uint32_t lid, Kind k) {
  std::vector<uint32_t> r;
  uint32_t n = g.subGroupSize(lid);
  if (k == Kind::ScanInclusive) n = g.subGroupLocalId(lid) + 1;
  if (k == Kind::ScanExclusive) n = g.subGroupLocalId(lid);
  for (uint32_t m = 0; m < n; ++m) r.push_back(g.subGroupBase(lid) + m);
  return r;
}

template <class T>
T integerCollective(const WorkGroup& g, uint32_t lid, Kind k, Op op, const std::vector<T>& x) {
  T acc = identity<T>(op);
  for (uint32_t i : operands(g, lid, k)) acc = combineInt(op, acc, x[i]);
  return acc;
}

// Floating point: the order of operations is unspecified, so min/max are exact and add is the
// exact sum (in long double) with a bound: any summation order of n terms is within
// (n-1) * eps * sum|x_i| of the exact sum (eps = unit roundoff of T).
struct FloatExpect {
  long double value = 0;
  long double tolerance = 0;
  bool ok(long double got) const {
    if (std::isinf(value) || std::isinf(got)) return value == got;
    return std::fabs(got - value) <= tolerance;
  }
};

// IEEE 754 binary16 to float, exactly (every half is a float).
inline float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);  // inf, nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    uint32_t e = 113, m = man;
    while (!(m & 0x400u)) {
      m <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((m & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <class T>
FloatExpect floatCollective(const WorkGroup& g, uint32_t lid, Kind k, Op op,
                            const std::vector<T>& x, long double unitRoundoff) {
  FloatExpect e;
  auto ids = operands(g, lid, k);
  if (op != Op::Add) {
    long double acc = identity<long double>(op);
    for (uint32_t i : ids) acc = op == Op::Min ? std::min<long double>(acc, x[i])
                                                : std::max<long double>(acc, x[i]);
    e.value = acc;
    return e;
  }
  long double sum = 0, mag = 0;
  for (uint32_t i : ids) {
    sum += x[i];
    mag += std::fabs(static_cast<long double>(x[i]));
  }
  e.value = sum;
  e.tolerance = (ids.empty() ? 0 : ids.size() - 1) * unitRoundoff * mag * 1.01L;
  return e;
}

// ---- clustered reductions (cl_khr_subgroup_clustered_reduce) --------------------------------

// The sub-group local ids of lid's cluster of `cluster` members (a power of two) that its
// sub-group has, in increasing order.
inline std::vector<uint32_t> clusterMembers(const WorkGroup& g, uint32_t lid, uint32_t cluster) {
  const uint32_t first = g.subGroupLocalId(lid) / cluster * cluster;
  std::vector<uint32_t> ids;
  for (uint32_t m = first; m < first + cluster && m < g.subGroupSize(lid); ++m)
    ids.push_back(g.subGroupBase(lid) + m);
  return ids;
}

enum class ClusterOp { Add, Mul, Min, Max, And, Or, Xor, LogicalAnd, LogicalOr, LogicalXor };
inline ClusterOp clusterOp(const std::string& name) {  // sub_group_clustered_reduce_<op>
  const std::string op = name.substr(name.find("_reduce_") + 8);
  if (op == "add") return ClusterOp::Add;
  if (op == "mul") return ClusterOp::Mul;
  if (op == "min") return ClusterOp::Min;
  if (op == "max") return ClusterOp::Max;
  if (op == "and") return ClusterOp::And;
  if (op == "or") return ClusterOp::Or;
  if (op == "xor") return ClusterOp::Xor;
  if (op == "logical_and") return ClusterOp::LogicalAnd;
  if (op == "logical_or") return ClusterOp::LogicalOr;
  return ClusterOp::LogicalXor;
}

// Integers: the members folded in increasing id from the first one's value, in T (wrapping), as
// Khronos' conformance test computes it; the logical operators answer 0 or 1, also for a
// cluster of one (a logical reduction of predicates, as Intel's driver gives it).
template <class T>
T clusteredInteger(ClusterOp op, const std::vector<T>& x) {
  using U = std::make_unsigned_t<T>;
  const bool logical =
      op == ClusterOp::LogicalAnd || op == ClusterOp::LogicalOr || op == ClusterOp::LogicalXor;
  T r = logical ? T(x.front() != 0) : x.front();
  for (size_t i = 1; i < x.size(); ++i) {
    const T y = x[i];
    switch (op) {
      case ClusterOp::Add:
        r = T(U(r) + U(y));
        break;
      case ClusterOp::Mul:
        r = T(U(uint64_t(U(r)) * uint64_t(U(y))));
        break;
      case ClusterOp::Min:
        r = std::min(r, y);
        break;
      case ClusterOp::Max:
        r = std::max(r, y);
        break;
      case ClusterOp::And:
        r = T(r & y);
        break;
      case ClusterOp::Or:
        r = T(r | y);
        break;
      case ClusterOp::Xor:
        r = T(r ^ y);
        break;
      case ClusterOp::LogicalAnd:
        r = T(r != 0 && y != 0);
        break;
      case ClusterOp::LogicalOr:
        r = T(r != 0 || y != 0);
        break;
      case ClusterOp::LogicalXor:
        r = T((r != 0) != (y != 0));
        break;
    }
  }
  return r;
}

// Floating point: min and max exact; a sum or product of n values within the first-order bound
// of any order of n - 1 roundings.
inline FloatExpect clusteredFloat(ClusterOp op, const std::vector<long double>& x,
                                  long double unitRoundoff) {
  FloatExpect e;
  long double r = x.front(), mag = std::fabs(x.front());
  for (size_t i = 1; i < x.size(); ++i) {
    switch (op) {
      case ClusterOp::Add:
        r += x[i];
        mag += std::fabs(x[i]);
        break;
      case ClusterOp::Mul:
        r *= x[i];
        break;
      case ClusterOp::Min:
        r = std::min(r, x[i]);
        break;
      case ClusterOp::Max:
        r = std::max(r, x[i]);
        break;
      default:
        break;  // integer operators only
    }
  }
  e.value = r;
  const long double n = (long double)(x.size() - 1);
  if (op == ClusterOp::Add) e.tolerance = n * unitRoundoff * mag * 1.01L;
  if (op == ClusterOp::Mul) e.tolerance = n * unitRoundoff * std::fabs(r) * 1.01L;
  return e;
}

// ---- functions of the active members (cl_khr_subgroup_non_uniform_vote, _ballot and
// _non_uniform_arithmetic)
// -------------------------------------------------------------------------

// The work-group local ids of the members of lid's sub-group that reach the call (active[m] for
// every local id m of the work-group), in increasing order.
inline std::vector<uint32_t> activeMembers(const WorkGroup& g, uint32_t lid,
                                           const std::vector<bool>& active) {
  std::vector<uint32_t> ids;
  for (uint32_t m = 0; m < g.subGroupSize(lid); ++m)
    if (active[g.subGroupBase(lid) + m]) ids.push_back(g.subGroupBase(lid) + m);
  return ids;
}

// The operator of sub_group_non_uniform_{reduce,scan_inclusive,scan_exclusive}_<op> (and of the
// clustered reductions): the name's last part after the kind.
inline ClusterOp operatorOf(const std::string& name) {
  for (const char* kind : {"_reduce_", "_inclusive_", "_exclusive_"})
    if (const size_t at = name.find(kind); at != std::string::npos)
      return clusterOp("_reduce_" + name.substr(at + std::string(kind).size()));
  return ClusterOp::Add;
}

// An exclusive scan's result for its first active member: the operator's identity.
template <class T>
T integerIdentity(ClusterOp op) {
  switch (op) {
    case ClusterOp::Mul:
    case ClusterOp::LogicalAnd:
      return T(1);
    case ClusterOp::Min:
      return std::numeric_limits<T>::max();
    case ClusterOp::Max:
      return std::numeric_limits<T>::min();
    case ClusterOp::And:
      return T(~T(0));
    default:
      return T(0);
  }
}
inline long double floatIdentity(ClusterOp op) {
  switch (op) {
    case ClusterOp::Mul:
      return 1.0L;
    case ClusterOp::Min:
      return std::numeric_limits<long double>::infinity();
    case ClusterOp::Max:
      return -std::numeric_limits<long double>::infinity();
    default:
      return 0.0L;
  }
}

// A 128-bit sub-group mask: bit i of word i / 32 is member i.
using Mask128 = std::array<uint32_t, 4>;
inline bool bitOf(const Mask128& m, uint32_t i) {
  return i < 128 && ((m[i / 32] >> (i % 32)) & 1u);
}
inline void setBit(Mask128& m, uint32_t i) { m[i / 32] |= 1u << (i % 32); }
// The set bits of `m` below `n`.
inline std::vector<uint32_t> bitsBelow(const Mask128& m, uint32_t n) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < n && i < 128; ++i)
    if (bitOf(m, i)) v.push_back(i);
  return v;
}
// get_sub_group_<which>_mask() of sub-group local id `id`: eq, ge, gt, le, lt; ge and gt run to
// the maximum sub-group size (as Khronos' conformance test reads the spec).
inline Mask128 relativeMask(const std::string& which, uint32_t id, uint32_t maxSize) {
  Mask128 m{};
  for (uint32_t i = 0; i < maxSize && i < 128; ++i)
    if ((which == "eq" && i == id) || (which == "ge" && i >= id) || (which == "gt" && i > id) ||
        (which == "le" && i <= id) || (which == "lt" && i < id))
      setBit(m, i);
  return m;
}

// ---- block reads and writes: buffers -----------------------------------------------------------

// intel_sub_group_block_read{,2,4,8}(p) and the _us/_uc/_ul forms: the k-th value of member i
// is p[i + k * max_sub_group_size]. Undefined in a partial sub-group (spec restriction).
inline std::optional<size_t> blockBufferIndex(const WorkGroup& g, uint32_t lid, uint32_t k) {
  if (g.partial(lid)) return std::nullopt;
  return size_t(g.subGroupLocalId(lid)) + size_t(k) * g.maxSubGroupSize();
}

// ---- block reads and writes: images --------------------------------------------------------------

// A 2D image as the raw bytes it holds: row-major, elementBytes per element, no padding.
struct RawImage {
  uint32_t width = 0, height = 0, elementBytes = 4;
  std::vector<uint8_t> bytes;
  uint8_t at(uint32_t e, uint32_t y, uint32_t o) const {
    return bytes[(size_t(y) * width + e) * elementBytes + o];
  }
  uint8_t& at(uint32_t e, uint32_t y, uint32_t o) {
    return bytes[(size_t(y) * width + e) * elementBytes + o];
  }
};

inline int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Image block read: member i's k-th value of n bytes (n = sizeof(element type): 4 for uint/_ui,
// 2 for _us, 1 for _uc, 8 for _ul) is read from byte x = byte_coord.x + n * i of row
// byte_coord.y + k, "without format conversion". Bounds: out-of-bounds reads return the edge
// element (CLAMP_TO_EDGE), which cl_intel_subgroups guarantees when the image element is as wide
// as the type read; the model applies the same element clamp to every element size.
inline uint64_t imageReadBytes(const RawImage& img, int64_t bx, int64_t y, unsigned n) {
  uint64_t r = 0;
  const int64_t es = img.elementBytes;
  int64_t yy = std::clamp<int64_t>(y, 0, int64_t(img.height) - 1);
  for (unsigned i = 0; i < n; ++i) {
    int64_t b = bx + i, e = floorDiv(b, es), o = b - e * es;
    int64_t ee = std::clamp<int64_t>(e, 0, int64_t(img.width) - 1);
    r |= uint64_t(img.at(uint32_t(ee), uint32_t(yy), uint32_t(o))) << (8 * i);
  }
  return r;
}
inline std::optional<uint64_t> imageBlockRead(const WorkGroup& g, uint32_t lid,
                                              const RawImage& img, int32_t cx, int32_t cy,
                                              uint32_t k, unsigned n) {
  if (g.partial(lid)) return std::nullopt;
  return imageReadBytes(img, int64_t(cx) + int64_t(n) * g.subGroupLocalId(lid), int64_t(cy) + k, n);
}

// Image block write of n bytes (the type's size) at byte x, row y: elements outside the image are
// left alone ("out-of-bounds writes will be ignored"). The model writes whole elements only,
// which every element size <= n satisfies; a work-item's write into an element wider than n
// (undefined by the specs) leaves the image unchanged, as the layer's library does.
inline void imageWriteBytes(RawImage& img, int64_t bx, int64_t y, unsigned n, uint64_t v) {
  const int64_t es = img.elementBytes;
  if (y < 0 || y >= int64_t(img.height) || es > int64_t(n) || floorDiv(bx, es) * es != bx) return;
  for (int64_t off = 0; off + es <= int64_t(n); off += es) {
    int64_t e = (bx + off) / es;
    if (e < 0 || e >= int64_t(img.width)) continue;
    for (int64_t o = 0; o < es; ++o)
      img.at(uint32_t(e), uint32_t(y), uint32_t(o)) = uint8_t(v >> (8 * (off + o)));
  }
}

// ---- media block reads and writes (cl_intel_media_block_io) ---------------------------------

// Where member lid's k-th value of a media block read or write lies: "The read-in texels in the
// 2D region taken in row-major order are re-organized as another 2D region with the byte width
// equal to the subgroup size. Then each work-item reads each byte column vector of the
// re-organized rectangle" (and "word"/"dword" for _us/_ui), where, SPV_INTEL_media_block_io says
// (cl_intel_spirv_media_block_io maps the OpenCL C functions onto its instructions), "If the
// source 2D region row byte width is not a power-of-two then the source 2D region row is
// assigned to the destination 2D region with undefined padding values to make a power-of-two
// row byte width" and a write "skips" those values "so that each row of the 2D region to write
// begins at an byte offset that is a power-of-two". So region element k*S + i lies at row
// (k*S + i) / pitch and column (k*S + i) % pitch, pitch the row's byte width rounded up to a
// power of two, in elements. `width` counts elements of n bytes. Nothing when the element is
// padding, lies past the region ("tail elements of some of the column vector are undefined"
// for reads, "will not be included in the written out region" for writes), or is in a partial
// sub-group ("must be encountered by all work items in a subgroup").
struct MediaElement {
  int64_t bx = 0, y = 0;
};
inline uint32_t mediaPitch(uint32_t width, unsigned n) {
  uint32_t bytes = 1;
  while (bytes < width * n) bytes *= 2;
  return bytes / n;
}
inline std::optional<MediaElement> mediaElement(const WorkGroup& g, uint32_t lid, int32_t cx,
                                                int32_t cy, uint32_t width, uint32_t height,
                                                uint32_t k, unsigned n) {
  if (g.partial(lid)) return std::nullopt;
  const uint64_t e = uint64_t(k) * g.maxSubGroupSize() + g.subGroupLocalId(lid);
  const uint32_t pitch = mediaPitch(width, n);
  if (e >= uint64_t(pitch) * height || e % pitch >= width) return std::nullopt;
  return MediaElement{int64_t(cx) + int64_t(e % pitch) * n, int64_t(cy) + int64_t(e / pitch)};
}

// "For out-of-bound reads, the read-in texels are replicated from the nearest edge for byte
// sized texels. The out-of-bound behavior is undefined for larger sized texels with the "_uc"
// builtin-functions" (_us: byte and word texels, _ui: byte, word and dword texels), i.e. defined
// when the image element is no wider than n; notes 1, 2 and 4 say the replication is of the
// whole edge element (B0B0B0B0, B0B1B0B1, the dword), which imageReadBytes' per-element clamp is.
// Nothing for an undefined read.
inline std::optional<uint64_t> mediaBlockRead(const WorkGroup& g, uint32_t lid,
                                              const RawImage& img, int32_t cx, int32_t cy,
                                              uint32_t width, uint32_t height, uint32_t k,
                                              unsigned n) {
  const auto at = mediaElement(g, lid, cx, cy, width, height, k, n);
  if (!at) return std::nullopt;
  const int64_t rowBytes = int64_t(img.width) * img.elementBytes;
  const bool inside = at->y >= 0 && at->y < int64_t(img.height) && at->bx >= 0 &&
                      at->bx + int64_t(n) <= rowBytes;
  if (!inside && img.elementBytes > n) return std::nullopt;
  return imageReadBytes(img, at->bx, at->y, n);
}

// "Out-of-bound writes are dropped." The spec writes images whose elements are no wider than n
// ("Writes to a 2D region of an image with surface formats of byte sized texels" for _uc, word
// or byte for _us, dword, word or byte for _ui); imageWriteBytes leaves wider ones alone.
inline void mediaBlockWrite(RawImage& img, const WorkGroup& g, uint32_t lid, int32_t cx,
                            int32_t cy, uint32_t width, uint32_t height, uint32_t k, unsigned n,
                            uint64_t v) {
  if (const auto at = mediaElement(g, lid, cx, cy, width, height, k, n))
    imageWriteBytes(img, at->bx, at->y, n, v);
}

}  // namespace isgref
