// SPDX-License-Identifier: MIT
// Payload encoding: little-endian u32/u64, strings and lists prefixed with their u32 length,
// fields in the order of EnvelopePayload. The reader checks every length against what is left,
// so a truncated or corrupted binary is refused, never read past.
#include "formats/binary_envelope.h"

#include <cstdint>
#include <cstring>

namespace isg {
namespace {

constexpr unsigned char kMagic[8] = {0x89, 'I', 'S', 'G', 'B', 'I', 'N', '\n'};
constexpr size_t kHeaderSize = sizeof kMagic + 4 + 8 + 8 + 8;

uint64_t fnv1a(uint64_t hash, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) hash = (hash ^ p[i]) * 0x100000001b3ull;
  return hash;
}
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;

class Writer {
 public:
  void u32(uint32_t v) { bytes(v, 4); }
  void u64(uint64_t v) { bytes(v, 8); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out_ += s;
  }
  void strings(const std::vector<std::string>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (const std::string& s : v) str(s);
  }
  std::string take() { return std::move(out_); }

 private:
  void bytes(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  std::string out_;
};

class Reader {
 public:
  Reader(const unsigned char* p, size_t n) : p_(p), left_(n) {}
  bool u32(uint32_t* v) {
    uint64_t w = 0;
    if (!bytes(&w, 4)) return false;
    *v = static_cast<uint32_t>(w);
    return true;
  }
  bool u64(uint64_t* v) { return bytes(v, 8); }
  bool flag(bool* v) {
    uint32_t w = 0;
    if (!u32(&w) || w > 1) return false;
    *v = w != 0;
    return true;
  }
  bool str(std::string* s) {
    uint32_t n = 0;
    if (!u32(&n) || n > left_) return false;
    s->assign(reinterpret_cast<const char*>(p_), n);
    advance(n);
    return true;
  }
  // A count of items each at least `minItemBytes` long: bounded by what is left.
  bool count(uint32_t* n, size_t minItemBytes) {
    return u32(n) && static_cast<uint64_t>(*n) * minItemBytes <= left_;
  }
  bool strings(std::vector<std::string>* v) {
    uint32_t n = 0;
    if (!count(&n, 4)) return false;
    v->resize(n);
    for (std::string& s : *v)
      if (!str(&s)) return false;
    return true;
  }
  bool done() const { return left_ == 0; }

 private:
  bool bytes(uint64_t* v, int n) {
    if (left_ < static_cast<size_t>(n)) return false;
    *v = 0;
    for (int i = 0; i < n; ++i) *v |= uint64_t{p_[i]} << (8 * i);
    advance(static_cast<size_t>(n));
    return true;
  }
  void advance(size_t n) {
    p_ += n;
    left_ -= n;
  }
  const unsigned char* p_;
  size_t left_;
};

bool readKernel(Reader& r, KernelManifest* k) {
  uint32_t hidden = 0, images = 0;
  uint32_t sizeKind = 0;  // 0 the default, 1 intel_reqd_sub_group_size, 2 from each launch
  if (!r.str(&k->name) || !r.u32(&k->subGroupSize) || !r.u32(&sizeKind) || sizeKind > 2 ||
      !r.strings(&k->families) || !r.u32(&k->scratchBytesPerItem) || !r.u32(&k->numUserArgs) ||
      !r.count(&hidden, 8))
    return false;
  k->requiredSubGroupSize = sizeKind == 1;
  k->launchSubGroupSize = sizeKind == 2;
  k->hiddenArgs.resize(hidden);
  for (uint32_t i = 0; i < hidden; ++i) {
    uint32_t kind = 0;
    HiddenArg& h = k->hiddenArgs[i];
    if (!r.u32(&kind) || !r.u32(&h.index) || !r.u32(&h.imageArg)) return false;
    // The layer sets these arguments at every enqueue: they must be what it appends, after the
    // application's own.
    if (kind == static_cast<uint32_t>(HiddenArg::Kind::LocalScratch))
      h.kind = HiddenArg::Kind::LocalScratch;
    else if (kind == static_cast<uint32_t>(HiddenArg::Kind::RawImage) && h.imageArg < k->numUserArgs)
      h.kind = HiddenArg::Kind::RawImage;
    else if (kind == static_cast<uint32_t>(HiddenArg::Kind::LaunchShape))
      h.kind = HiddenArg::Kind::LaunchShape;
    else if (kind == static_cast<uint32_t>(HiddenArg::Kind::ImageFacts) && h.imageArg < k->numUserArgs)
      h.kind = HiddenArg::Kind::ImageFacts;
    else if (kind == static_cast<uint32_t>(HiddenArg::Kind::PackedLaunch))
      h.kind = HiddenArg::Kind::PackedLaunch;
    else
      return false;
    if (h.index != k->numUserArgs + i) return false;
  }
  for (std::size_t& d : k->reqdWorkGroupSize) {
    uint64_t v = 0;
    if (!r.u64(&v)) return false;
    d = static_cast<std::size_t>(v);
  }
  if (!r.flag(&k->wholeSubGroups) || !r.count(&images, 4)) return false;
  k->blockImageArgs.resize(images);
  for (unsigned& index : k->blockImageArgs)
    if (!r.u32(&index) || index >= k->numUserArgs) return false;
  if (!r.count(&images, 4)) return false;
  k->mixedImageArgs.resize(images);
  for (unsigned& index : k->mixedImageArgs)
    if (!r.u32(&index) || index >= k->numUserArgs) return false;
  uint32_t args = 0;
  if (!r.count(&args, 20)) return false;
  if (args != 0 && args != k->numUserArgs) return false;  // none, or one per user argument
  k->args.resize(args);
  for (ArgInfo& a : k->args) {
    uint32_t address = 0, access = 0;
    if (!r.u32(&address) || address > uint32_t(ArgInfo::Address::Local) || !r.u32(&access) ||
        access > uint32_t(ArgInfo::Access::ReadWrite) || !r.str(&a.typeName) || !r.u32(&a.typeQualifiers) ||
        a.typeQualifiers > 15 || !r.str(&a.name))
      return false;
    a.address = static_cast<ArgInfo::Address>(address);
    a.access = static_cast<ArgInfo::Access>(access);
  }
  // Sizes the layer divides and multiplies by.
  return !k->name.empty() && k->subGroupSize >= 1 && k->subGroupSize <= 128;
}

bool readHeaders(Reader& r, std::vector<SourceFile>* headers) {
  uint32_t n = 0;
  if (!r.count(&n, 8)) return false;
  headers->resize(n);
  for (SourceFile& h : *headers)
    if (!r.str(&h.name) || !r.str(&h.text)) return false;
  return true;
}

void writeHeaders(Writer& w, const std::vector<SourceFile>& headers) {
  w.u32(static_cast<uint32_t>(headers.size()));
  for (const SourceFile& h : headers) {
    w.str(h.name);
    w.str(h.text);
  }
}

// A compiled object's facts for clLinkProgram.
bool readObjectFacts(Reader& r, EnvelopePayload* p) {
  uint32_t n = 0;
  if (!r.count(&n, 12)) return false;
  p->contextFunctions.resize(n);
  for (ContextFunction& f : p->contextFunctions)
    if (!r.str(&f.name) || !r.strings(&f.families) || !r.u32(&f.widestBytes)) return false;
  if (!r.strings(&p->externalFunctions) || !r.str(&p->objectSource)) return false;
  if (!readHeaders(r, &p->objectHeaders)) return false;
  uint32_t frontEnd = 0;
  if (!r.u32(&frontEnd) || frontEnd > 1 || !r.count(&n, 12)) return false;
  p->frontEndObject = frontEnd == 1;
  p->libraryMembers.resize(n);
  for (CompiledObject& o : p->libraryMembers)
    if (!r.str(&o.source) || !r.str(&o.options) || !readHeaders(r, &o.headers)) return false;
  return true;
}

}  // namespace

std::string encodeEnvelopePayload(const EnvelopePayload& p) {
  Writer w;
  w.u32(static_cast<uint32_t>(p.strategy));
  w.u32(p.defaultSubGroupSize);
  w.u32(static_cast<uint32_t>(p.kernels.size()));
  for (const KernelManifest& k : p.kernels) {
    w.str(k.name);
    w.u32(k.subGroupSize);
    w.u32(k.requiredSubGroupSize ? 1u : k.launchSubGroupSize ? 2u : 0u);
    w.strings(k.families);
    w.u32(k.scratchBytesPerItem);
    w.u32(k.numUserArgs);
    w.u32(static_cast<uint32_t>(k.hiddenArgs.size()));
    for (const HiddenArg& h : k.hiddenArgs) {
      w.u32(static_cast<uint32_t>(h.kind));
      w.u32(h.index);
      w.u32(h.imageArg);
    }
    for (std::size_t d : k.reqdWorkGroupSize) w.u64(d);
    w.u32(k.wholeSubGroups);
    w.u32(static_cast<uint32_t>(k.blockImageArgs.size()));
    for (unsigned index : k.blockImageArgs) w.u32(index);
    w.u32(static_cast<uint32_t>(k.mixedImageArgs.size()));
    for (unsigned index : k.mixedImageArgs) w.u32(index);
    w.u32(static_cast<uint32_t>(k.args.size()));
    for (const ArgInfo& a : k.args) {
      w.u32(static_cast<uint32_t>(a.address));
      w.u32(static_cast<uint32_t>(a.access));
      w.str(a.typeName);
      w.u32(a.typeQualifiers);
      w.str(a.name);
    }
  }
  w.u32(static_cast<uint32_t>(p.contextFunctions.size()));
  for (const ContextFunction& f : p.contextFunctions) {
    w.str(f.name);
    w.strings(f.families);
    w.u32(f.widestBytes);
  }
  w.strings(p.externalFunctions);
  w.str(p.objectSource);
  writeHeaders(w, p.objectHeaders);
  w.u32(p.frontEndObject ? 1u : 0u);
  w.u32(static_cast<uint32_t>(p.libraryMembers.size()));
  for (const CompiledObject& o : p.libraryMembers) {
    w.str(o.source);
    w.str(o.options);
    writeHeaders(w, o.headers);
  }
  w.str(p.rewrittenSource);
  w.str(p.rewrittenOptions);
  w.str(p.appOptions);
  return w.take();
}

std::string envelopeHeader(const std::string& encodedPayload, const unsigned char* driver,
                           size_t driverSize) {
  const auto* payload = reinterpret_cast<const unsigned char*>(encodedPayload.data());
  Writer w;
  w.u32(kEnvelopeVersion);
  w.u64(encodedPayload.size());
  w.u64(driverSize);
  w.u64(fnv1a(fnv1a(kFnvBasis, payload, encodedPayload.size()), driver, driverSize));
  return std::string(reinterpret_cast<const char*>(kMagic), sizeof kMagic) + w.take() +
         encodedPayload;
}

size_t envelopeHeaderSize(const std::string& encodedPayload) {
  return kHeaderSize + encodedPayload.size();
}

EnvelopeCheck openEnvelope(const unsigned char* data, size_t size, EnvelopePayload* out,
                           std::string* encodedPayload, const unsigned char** driverBinary,
                           size_t* driverSize, std::string* why) {
  if (!data || size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0)
    return EnvelopeCheck::NotEnveloped;
  auto invalid = [&](const std::string& reason) {
    *why = reason;
    return EnvelopeCheck::Invalid;
  };
  Reader header(data + sizeof kMagic, size - sizeof kMagic);
  uint32_t version = 0;
  uint64_t payloadSize = 0, driverBytes = 0, checksum = 0;
  if (!header.u32(&version))
    return invalid("the binary is truncated inside the layer's header");
  if (version != kEnvelopeVersion)
    return invalid("the binary was written by a layer with binary format " +
                   std::to_string(version) + ", this layer reads format " +
                   std::to_string(kEnvelopeVersion) + "; build the program from source again");
  if (!header.u64(&payloadSize) || !header.u64(&driverBytes) || !header.u64(&checksum))
    return invalid("the binary is truncated inside the layer's header");
  if (payloadSize > size - kHeaderSize || driverBytes != size - kHeaderSize - payloadSize)
    return invalid("the binary has " + std::to_string(size) + " bytes where the layer wrote " +
                   std::to_string(kHeaderSize + payloadSize + driverBytes) +
                   " (cut short or padded since)");
  const unsigned char* payload = data + kHeaderSize;
  if (fnv1a(kFnvBasis, payload, size - kHeaderSize) != checksum)
    return invalid("the binary's checksum does not match its contents (changed since it was "
                   "written)");
  Reader r(payload, static_cast<size_t>(payloadSize));
  EnvelopePayload p;
  uint32_t strategy = 0, kernels = 0;
  if (!r.u32(&strategy) || strategy >= strategies().size() ||
      !r.u32(&p.defaultSubGroupSize) || p.defaultSubGroupSize < 1 ||
      p.defaultSubGroupSize > 128 || !r.count(&kernels, 4))
    return invalid("the layer's kernel information in the binary is corrupt");
  p.strategy = static_cast<Strategy>(strategy);
  p.kernels.resize(kernels);
  for (KernelManifest& k : p.kernels)
    if (!readKernel(r, &k)) return invalid("the layer's kernel information in the binary is corrupt");
  if (!readObjectFacts(r, &p) || !r.str(&p.rewrittenSource) || !r.str(&p.rewrittenOptions) || !r.str(&p.appOptions) ||
      !r.done())
    return invalid("the layer's kernel information in the binary is corrupt");
  if (payloadSize == size - kHeaderSize) return invalid("the binary holds no driver binary");
  *out = std::move(p);
  encodedPayload->assign(reinterpret_cast<const char*>(payload), static_cast<size_t>(payloadSize));
  *driverBinary = payload + payloadSize;
  *driverSize = size - kHeaderSize - static_cast<size_t>(payloadSize);
  return EnvelopeCheck::Enveloped;
}

}  // namespace isg
