// SPDX-License-Identifier: MIT
// The envelope the layer puts around the driver's binary of a program it rewrote (issue 13.2).
// A rewritten program's kernels have hidden arguments and sub-group facts only the rewrite
// knows; an application that caches CL_PROGRAM_BINARIES and creates the program from them on
// its next run must get the same kernels back. So CL_PROGRAM_BINARIES of such a program is
//   magic (8 bytes) | envelope version (u32) | payload size (u64) | driver binary size (u64) |
//   FNV-1a 64 of payload and driver binary (u64) | payload | driver binary
// with the payload holding what the layer needs (docs/design.md §3), and
// clCreateProgramWithBinary strips it again before the driver sees the binary. Binaries of
// programs the layer passed through are the driver's, byte for byte. Pure data: no OpenCL
// calls, so the parser can be tested (and fuzzed) on its own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "isg/rewriter.h"

namespace isg {

// Bumped whenever the payload or the hidden-argument contract between the builtins library and
// the layer changes: binaries of another version are refused with CL_INVALID_BINARY, and the
// application builds from source again, as it does when a driver update invalidates its cache.
// Version 2 added the driver binary's size and the checksum: a cache cut short by a full disk
// or a flipped bit is refused here instead of reaching a driver that crashes on it (PoCL 3.1
// does). Version 3 added each kernel's mixedImageArgs (raw-bits image views at enqueue) and the
// raw-image hidden arguments (emulated read_write images). Version 4: what a link needs of a
// compiled object (context functions with their facts, the source of one that calls others).
// Version 5: each kernel's argument information (PTX from the layer's front end has none).
// Version 6: objects and libraries of the layer's front end (their sources, for the link).
constexpr unsigned kEnvelopeVersion = 6;

// How an object was compiled, so that a link can compile it again (separate_compilation.h).
struct CompiledObject {
  std::string source;  // "" = ask the application's program (CL_PROGRAM_SOURCE)
  std::string options;
  std::vector<SourceFile> headers;
  // A library the layer's front end linked (-create-library): its objects, each compiled again
  // by the link that uses it; none of them has members.
  std::vector<CompiledObject> members;
};

// What a rewritten program's binary carries besides the driver's bytes.
struct EnvelopePayload {
  Strategy strategy = Strategy::Local;
  unsigned defaultSubGroupSize = 16;
  std::vector<KernelManifest> kernels;
  // Compiled objects, for clLinkProgram (separate_compilation.h): the functions that take the
  // sub-group context, those called but defined elsewhere, and for an object that calls some,
  // how to compile it again (source and input headers; its options are appOptions).
  std::vector<ContextFunction> contextFunctions;
  std::vector<std::string> externalFunctions;
  std::string objectSource;
  std::vector<SourceFile> objectHeaders;
  // An object or library the layer's front end compiled (RewriteResult::Form::Object): the
  // driver's binary is its stand-in's; objectSource and objectHeaders, or a library's members,
  // are what a link compiles.
  bool frontEndObject = false;
  std::vector<CompiledObject> libraryMembers;
  // The rewritten source and the driver options it was built with, where the layer may need to
  // build it again (register cap on NVIDIA); empty otherwise.
  std::string rewrittenSource;
  std::string rewrittenOptions;
  std::string appOptions;
};

std::string encodeEnvelopePayload(const EnvelopePayload& payload);
// The envelope's bytes before the driver binary `driver` of `driverSize` bytes.
std::string envelopeHeader(const std::string& encodedPayload, const unsigned char* driver,
                           size_t driverSize);
// How many bytes envelopeHeader adds in front of any driver binary.
size_t envelopeHeaderSize(const std::string& encodedPayload);

enum class EnvelopeCheck {
  NotEnveloped,  // no magic: a driver binary (or garbage) for the driver to judge
  Enveloped,     // valid: *payload and the driver binary's span are set
  Invalid        // the magic is there but the rest is not ours to run: *why says why
};
// *encodedPayload gets the payload's bytes: binaries for several devices must agree on them.
EnvelopeCheck openEnvelope(const unsigned char* data, size_t size, EnvelopePayload* payload,
                           std::string* encodedPayload, const unsigned char** driverBinary,
                           size_t* driverSize, std::string* why);

}  // namespace isg
