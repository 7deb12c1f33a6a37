// SPDX-License-Identifier: MIT
// The physical layout of a SPIR-V module (SPIR-V specification, section 2.3), checked before any
// driver sees the module: clCreateProgramWithIL must answer CL_INVALID_VALUE for input that is
// not "well-formed intermediate language", and Intel's CPU runtime 2026.2 instead exits the
// host process at clBuildProgram when an instruction's word count runs past the end of the
// module (measured: status 15, "InvalidWordCount"). Header-only and standard-library-only, so the
// tests check it directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace isg::spirv {

constexpr std::uint32_t kMagic = 0x07230203u;
constexpr std::size_t kHeaderWords = 5;

// What a module's header says, for the checks that need a device (the SPIR-V version).
struct Header {
  unsigned major = 0, minor = 0;
  bool byteSwapped = false;  // the words are in the other byte order than this host's
};

inline std::uint32_t swapBytes(std::uint32_t w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}

// The words of a module, in this host's byte order whichever order the module has.
struct Words {
  const unsigned char* bytes;
  bool swapped;
  std::uint32_t operator()(std::size_t i) const {
    std::uint32_t w = 0;
    std::memcpy(&w, bytes + 4 * i, 4);
    return swapped ? swapBytes(w) : w;
  }
};

// True when `length` bytes at `il` are a physically well-formed module: a whole number of
// words, the magic number (in either byte order), a version 1.x word with its reserved bytes
// zero, a non-zero id bound, a zero schema word, and a stream of instructions whose word counts
// are non-zero and end exactly at the end of the module. `*why` says what is wrong otherwise.
inline bool wellFormed(const void* il, std::size_t length, Header* header, std::string* why) {
  auto fail = [why](const std::string& what) {
    if (why) *why = what;
    return false;
  };
  if (!il || length == 0) return fail("no module (a NULL pointer or a length of 0)");
  if (length % 4 != 0)
    return fail("its length, " + std::to_string(length) + " bytes, is not a whole number of words");
  const std::size_t words = length / 4;
  if (words < kHeaderWords)
    return fail("it is " + std::to_string(length) + " bytes long, shorter than the 20-byte header");
  const auto* bytes = static_cast<const unsigned char*>(il);
  std::uint32_t first = 0;
  std::memcpy(&first, bytes, 4);
  const bool swapped = first == swapBytes(kMagic);
  if (!swapped && first != kMagic) return fail("it does not start with the SPIR-V magic number");
  const Words word{bytes, swapped};
  const std::uint32_t version = word(1);
  const unsigned major = (version >> 16) & 0xffu, minor = (version >> 8) & 0xffu;
  if ((version & 0xff0000ffu) != 0 || major != 1)
    return fail("its version word 0x" + [&] {
      char b[9];
      std::snprintf(b, sizeof b, "%08x", version);
      return std::string(b);
    }() + " is not a SPIR-V 1.x version");
  if (word(3) == 0) return fail("its id bound is 0");
  if (word(4) != 0) return fail("its schema word is not 0");
  for (std::size_t at = kHeaderWords; at < words;) {
    const std::uint32_t count = word(at) >> 16;
    if (count == 0)
      return fail("the instruction at word " + std::to_string(at) + " has a word count of 0");
    if (count > words - at)
      return fail("the instruction at word " + std::to_string(at) + " needs " +
                  std::to_string(count) + " words and only " + std::to_string(words - at) +
                  " remain (a truncated module)");
    at += count;
  }
  if (header) *header = Header{major, minor, swapped};
  return true;
}

// Whether some instruction of a module wellFormed accepts satisfies match(opcode, word, count),
// where word(k) is its k-th word (0: the opcode word) and count its word count.
template <class Match>
bool anyInstruction(const std::string& module, Match&& match) {
  Header header;
  if (!wellFormed(module.data(), module.size(), &header, nullptr)) return false;
  const auto* bytes = reinterpret_cast<const unsigned char*>(module.data());
  const Words word{bytes, header.byteSwapped};
  for (std::size_t at = kHeaderWords, words = module.size() / 4; at < words;) {
    const std::uint32_t count = word(at) >> 16;
    if (match(word(at) & 0xffffu, [&](std::size_t k) { return word(at + k); }, count)) return true;
    at += count;
  }
  return false;
}

}  // namespace isg::spirv
