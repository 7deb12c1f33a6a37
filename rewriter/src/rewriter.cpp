// SPDX-License-Identifier: MIT
// rewriteProgram and its textual parts: the cheap pre-scan, the prelude, applying the analysis'
// edits, and the result cache. Clang is only reached through analysis.h.
#include "isg/rewriter.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SHA1.h>

#include "analysis.h"
#include "embedded.h"
#include "kernel_facts.h"
#include "table.h"

namespace isg {
namespace {

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

// Token pasting (`intel_sub_group_##op`) hides the full name from a textual scan, so any
// identifier that carries the common "sub_group" stem counts as well.
bool textMayNeedRewrite(std::string_view text) {
  static const std::unordered_set<std::string_view> words = [] {
    std::unordered_set<std::string_view> w;
    for (const std::string& s : detail::triggerWords()) w.insert(s);
    return w;
  }();
  for (std::size_t i = 0; i < text.size();) {
    if (!isIdentStart(text[i])) {
      // skip the rest of a number/identifier-like run so "0x1sub_group" is not split oddly
      ++i;
      continue;
    }
    if (i > 0 && isIdentChar(text[i - 1])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && isIdentChar(text[j])) ++j;
    std::string_view id = text.substr(i, j - i);
    if (words.count(id) || id.find("sub_group") != std::string_view::npos) return true;
    i = j;
  }
  return false;
}

// The names of `#include "x"` / `#include <x>` lines.
std::vector<std::string> includedNames(std::string_view text) {
  std::vector<std::string> names;
  for (std::size_t pos = text.find("include"); pos != std::string_view::npos;
       pos = text.find("include", pos + 7)) {
    std::size_t b = pos;
    while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
    if (b == 0 || text[b - 1] != '#') continue;
    std::size_t q = pos + 7;
    while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
    if (q >= text.size() || (text[q] != '"' && text[q] != '<')) continue;
    char close = text[q] == '"' ? '"' : '>';
    std::size_t e = text.find_first_of(std::string{close, '\n'}, q + 1);
    if (e == std::string_view::npos || text[e] != close) continue;
    names.emplace_back(text.substr(q + 1, e - q - 1));
  }
  return names;
}

bool readSmallFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0 || size > (16 << 20)) return false;
  in.seekg(0);
  out->assign(std::size_t(size), '\0');
  in.read(out->data(), size);
  return bool(in);
}

// Headers read from disk through -I can hold the only mention of a builtin (typically a macro
// such as `#define SHUFFLE intel_sub_group_shuffle`), so the scan follows includes there too.
bool diskIncludesMayNeedRewrite(const RewriteInput& input) {
  std::vector<std::string> dirs;
  std::vector<std::string> args = detail::splitOptions(input.options);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-I" && i + 1 < args.size()) dirs.push_back(args[++i]);
    else if (args[i].size() > 2 && args[i].compare(0, 2, "-I") == 0) dirs.push_back(args[i].substr(2));
  }
  dirs.push_back(".");
  std::vector<std::string> pending = includedNames(input.source);
  for (const SourceFile& h : input.headers)
    for (std::string& n : includedNames(h.text)) pending.push_back(std::move(n));
  std::unordered_set<std::string> seen;
  for (const SourceFile& h : input.headers) seen.insert(h.name);
  for (std::size_t files = 0; !pending.empty() && files < 64;) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(name).second) continue;
    std::vector<std::string> candidates;
    if (!name.empty() && name[0] == '/') candidates.push_back(name);
    else
      for (const std::string& d : dirs) candidates.push_back(d + "/" + name);
    for (const std::string& path : candidates) {
      std::string text;
      if (!readSmallFile(path, &text)) continue;
      ++files;
      if (textMayNeedRewrite(text)) return true;
      for (std::string& n : includedNames(text)) pending.push_back(std::move(n));
      break;
    }
  }
  return false;
}

unsigned countLines(std::string_view text) {
  return unsigned(std::count(text.begin(), text.end(), '\n'));
}

// `#pragma OPENCL EXTENSION cl_intel_subgroups... : state` lines: drivers without the extension
// warn about them. The line's text goes, its line break stays.
void blankExtensionPragmas(const std::string& file, const std::string& text,
                           std::vector<detail::FileEdit>& edits) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::size_t contentEnd = end;
    if (contentEnd > start && text[contentEnd - 1] == '\r') --contentEnd;
    std::string_view line(text.data() + start, contentEnd - start);
    std::vector<std::string_view> words;
    for (std::size_t i = 0; i < line.size();) {
      if (line[i] == ' ' || line[i] == '\t') {
        ++i;
        continue;
      }
      std::size_t j = i;
      if (line[i] == '#' || line[i] == ':') {
        j = i + 1;
      } else {
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != ':' &&
               line[j] != '#')
          ++j;
      }
      words.push_back(line.substr(i, j - i));
      i = j;
    }
    bool match = words.size() >= 5 && words[0] == "#" && words[1] == "pragma" &&
                 words[2] == "OPENCL" && words[3] == "EXTENSION";
    if (match) {
      std::string_view ext = words[4];
      match = ext.substr(0, std::string_view("cl_intel_subgroups").size()) == "cl_intel_subgroups" ||
              ext == "cl_intel_required_subgroup_size";
    }
    if (match && contentEnd > start)
      edits.push_back(detail::FileEdit{file, unsigned(start), unsigned(contentEnd - start), ""});
    start = end + 1;
  }
}

bool applyEdits(const std::string& file, const std::string& text,
                const std::vector<detail::FileEdit>& all, std::string* out) {
  std::vector<const detail::FileEdit*> mine;
  for (const detail::FileEdit& e : all)
    if (e.file == file) mine.push_back(&e);
  std::stable_sort(mine.begin(), mine.end(),
                   [](const auto* a, const auto* b) { return a->offset < b->offset; });
  std::string result;
  result.reserve(text.size() + 64 * mine.size());
  std::size_t pos = 0;
  for (const detail::FileEdit* e : mine) {
    if (e->offset < pos || e->offset + e->length > text.size()) return false;  // overlap
    result.append(text, pos, e->offset - pos);
    result += e->text;
    pos = e->offset + e->length;
  }
  result.append(text, pos, std::string::npos);
  // The line map relies on every user line staying where it was.
  if (countLines(result) != countLines(text)) return false;
  *out = std::move(result);
  return true;
}

}  // namespace

namespace detail {

RewriteResult errorResult(std::string log) {
  RewriteResult r;
  r.status = RewriteResult::Status::Error;
  r.log = std::move(log);
  if (!r.log.empty() && r.log.back() != '\n') r.log += '\n';
  return r;
}

// The strategy's library: builtins-cl/common/ and builtins-cl/<strategy>/ merged in file-name
// order, a strategy file replacing the common file of the same name. Shared families (identity,
// block) are written once; exchanges differ per strategy.
// The khr test double adds builtins-cl/khr-test/ (its own file names, so it replaces nothing).
std::vector<const EmbeddedFile*> libraryFiles(const DeviceTraits& traits) {
  std::map<std::string_view, const EmbeddedFile*> byName;
  auto add = [&byName](std::string_view folder) {
    for (const EmbeddedFile* f : embeddedUnder(folder))
      byName[std::string_view(f->name).substr(folder.size() + 1)] = f;
  };
  add("common");
  for (const std::string& folder : libraryFacts(traits.strategy, traits.khrTestDouble).folders)
    add(folder);
  std::vector<const EmbeddedFile*> files;
  for (const auto& entry : byName) files.push_back(entry.second);
  return files;
}

std::string buildPrelude(const DeviceTraits& traits, const Analysis& a) {
  std::string p;
  for (const std::string& f : a.families) p += "#define ISG_NEED_" + f + " 1\n";
  if (traits.strategy == Strategy::Khr) {
    // One S for every kernel that calls a builtin: the khr library uses it as a constant.
    std::vector<unsigned> sizes;
    for (const KernelManifest& k : a.kernels)
      if (!k.families.empty() && std::find(sizes.begin(), sizes.end(), k.subGroupSize) == sizes.end())
        sizes.push_back(k.subGroupSize);
    // A compiled object's helpers may serve kernels of other objects, with other sizes.
    const bool sharedHelpers = a.compiledObject && !a.contextFunctions.empty();
    if (sizes.size() == 1 && !sharedHelpers)
      p += "#define __ISG_KHR_ONLY_S " + std::to_string(sizes[0]) + "u\n";
  }
  if (emulatesReadWriteImages(traits))
    // The library's stand-in for read_write image2d_t (75-image.cl); the parse took the
    // user's #if branches with the feature macro defined, so the driver does too.
    p += "#define __ISG_EMULATED_RW_IMAGES 1\n"
         "#if __OPENCL_C_VERSION__ >= 300 && !defined(__opencl_c_read_write_images)\n"
         "#define __opencl_c_read_write_images 1\n#endif\n";
  if (traits.strategy == Strategy::NvidiaPtx && traits.nvidiaComputeCapability != 0)
    p += "#define __ISG_NV_SM " + std::to_string(traits.nvidiaComputeCapability) + "\n";
  if (traits.strategy == Strategy::Khr && traits.khrTestDouble) {
    p += "#define __ISG_KHR_REFERENCE_SIZE " + std::to_string(traits.nativeSubGroupSize) + "u\n";
    if (!traits.khrTestMinimal) p += "#define __ISG_KHR_REFERENCE_OPTIONAL 1\n";
  }
  auto append = [&p](std::string_view text) {
    p.append(text.data(), text.size());
    if (!text.empty() && text.back() != '\n') p += '\n';
  };
  if (const EmbeddedFile* def = findEmbedded("builtins.def")) append(def->text());
  p += collectiveRows(a.families);
  for (const EmbeddedFile* f : libraryFiles(traits)) append(f->text());
  p += builtinMacros(a.userDefined, a.macroArity, a.extraArity);
  return p;
}

// Why the khr strategy cannot serve the program, or "" when it can. A kernel that calls
// builtins needs its Intel sub-groups to be whole aligned runs of a native sub-group: S must
// divide the native size N (0: unknown, e.g. isg-rewrite without a device; assumed to fit).
// One kernel that does not fit sends the whole program to local: helpers that take the
// sub-group context are shared between kernels, and one program has one library.
std::string khrMisfit(const DeviceTraits& traits, const std::vector<KernelManifest>& kernels) {
  const unsigned n = traits.nativeSubGroupSize;
  if (traits.strategy != Strategy::Khr || n == 0) return {};
  for (const KernelManifest& k : kernels) {
    if (k.families.empty()) continue;  // calls no builtin: any S runs
    const unsigned s = k.subGroupSize;
    if (s == 0 || s > n || n % s != 0)
      return "note: kernel '" + k.name + "' needs sub-group size " + std::to_string(s) +
             ", which does not divide the device's native sub-group size " + std::to_string(n) +
             "; the program uses the local sub-group strategy instead of khr (sub-group builtins "
             "must then be reached in work-group uniform control flow)";
  }
  return {};
}

}  // namespace detail

namespace {

// The text the driver gets for the program's own files. A header read from disk that needs
// edits cannot be edited where it lies, so its edited text replaces the #include line that
// brought it in (and so do the disk headers that include it, their own includes re-pointed at
// absolute paths since they no longer sit beside them). Every output line keeps its origin in
// the line map, which is how build logs name the user's file and line: NVIDIA ignores #line.
class Composer {
 public:
  Composer(const RewriteInput& in, const detail::Analysis& a, std::vector<detail::FileEdit> edits)
      : includes_(a.includes) {
    std::set<std::string> program{"<source>"};
    for (const SourceFile& h : in.headers) program.insert(h.name);
    for (const detail::FileEdit& e : edits)
      if (!program.count(e.file)) fold_.insert(e.file);
    for (bool grew = true; grew;) {
      grew = false;
      for (const detail::IncludeDirective& d : includes_)
        if (fold_.count(d.target) && !program.count(d.file) && fold_.insert(d.file).second) grew = true;
    }
    // The directives of the files we write: a folded target's line becomes a marker that
    // compose() replaces with its text; a moved file's other includes get absolute paths.
    std::map<std::pair<std::string, unsigned>, const detail::IncludeDirective*> byPlace;
    for (const detail::IncludeDirective& d : includes_) {
      if (!program.count(d.file) && !fold_.count(d.file)) continue;
      auto& slot = byPlace[{d.file, d.begin}];
      if (!slot || (d.entered && !slot->entered)) slot = &d;
    }
    for (const auto& [place, d] : byPlace) {
      if (fold_.count(d->target)) {
        std::string text;
        if (d->entered) {
          text = marker(targets_.size());
          targets_.push_back(d->target);
        }
        edits.push_back(detail::FileEdit{d->file, d->begin, d->end - d->begin, text});
      } else if (fold_.count(d->file) && !d->targetPath.empty() && !program.count(d->target)) {
        edits.push_back(
            detail::FileEdit{d->file, d->begin, d->end - d->begin, "#include \"" + d->targetPath + "\""});
      }
    }
    auto take = [&](const std::string& name, const std::string& text) {
      std::string out;
      if (!applyEdits(name, text, edits, &out)) {
        error_ = "error: internal error in the sub-group rewriter: conflicting edits in " + name;
        return;
      }
      texts_[name] = std::move(out);
    };
    take("<source>", in.source);
    for (const SourceFile& h : in.headers) take(h.name, h.text);
    for (const SourceFile& f : a.diskFiles)
      if (fold_.count(f.name)) take(f.name, f.text);
    for (const std::string& f : fold_)
      if (!texts_.count(f) && error_.empty())
        error_ = "error: the sub-group rewriter lost the text of '" + f + "'";
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // `name`'s text with folded headers in place; its lines start at line `first` of `written`.
  std::string compose(const std::string& name, const std::string& written, unsigned first,
                      std::vector<LineMapEntry>* map) {
    std::vector<Line> lines;
    expand(name, 0, &lines);
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const Line& l = lines[i];
      out += l.text;
      if (i + 1 < lines.size()) out += '\n';
      const unsigned at = first + unsigned(i);
      LineMapEntry* last = map->empty() ? nullptr : &map->back();
      if (last && last->rewrittenFile == written && last->originalFile == *l.file &&
          last->rewrittenFirst + last->count == at && last->originalFirst + last->count == l.line)
        ++last->count;
      else
        map->push_back(LineMapEntry{written, at, 1, *l.file, l.line});
    }
    return out;
  }

 private:
  struct Line {
    std::string text;
    const std::string* file;
    unsigned line;
  };
  static std::string marker(std::size_t i) { return "\x01isg-fold-" + std::to_string(i) + "\x01"; }

  void expand(const std::string& name, int depth, std::vector<Line>* out) {
    auto it = texts_.find(name);
    if (it == texts_.end()) return;
    const std::string& text = it->second;
    const std::string* file = &it->first;
    unsigned line = 1;
    for (std::size_t start = 0; start <= text.size(); ++line) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string_view l(text.data() + start, end - start);
      std::size_t m = l.find("\x01isg-fold-");
      if (m != std::string_view::npos && depth < 64) {
        std::size_t index = std::strtoul(std::string(l.substr(m + 10)).c_str(), nullptr, 10);
        std::size_t before = out->size();
        if (index < targets_.size()) expand(targets_[index], depth + 1, out);
        // The header's final newline is the directive's own.
        if (out->size() > before + 1 && out->back().text.empty()) out->pop_back();
        if (out->size() == before) out->push_back(Line{"", file, line});
      } else {
        out->push_back(Line{std::string(l), file, line});
      }
      if (end == text.size()) break;
      start = end + 1;
    }
  }

  const std::vector<detail::IncludeDirective>& includes_;
  std::set<std::string> fold_;
  std::vector<std::string> targets_;
  std::map<std::string, std::string> texts_;
  std::string error_;
};

RewriteResult rewriteUncached(const RewriteInput& input, std::vector<SourceFile>* disk) {
  detail::Analysis a = detail::analyzeProgram(input);
  *disk = a.diskFiles;
  if (!a.ok) return detail::errorResult(a.log);
  // The khr fallback is decided here, per program, because only the analysis knows every
  // kernel's S; the second parse happens only for programs that fall back.
  std::string note = detail::khrMisfit(input.traits, a.kernels);
  RewriteInput fallback;
  if (!note.empty()) {
    fallback = input;
    fallback.traits.strategy = Strategy::Local;
    fallback.traits.khrTestDouble = false;
    a = detail::analyzeProgram(fallback);
    *disk = a.diskFiles;
    if (!a.ok) return detail::errorResult(a.log);
  }
  const RewriteInput& in = note.empty() ? input : fallback;

  std::vector<detail::FileEdit> edits = std::move(a.edits);
  std::size_t before = edits.size();
  blankExtensionPragmas("<source>", in.source, edits);
  for (const SourceFile& h : in.headers) blankExtensionPragmas(h.name, h.text, edits);
  bool blanked = edits.size() != before;
  if (!a.usesSubGroups && !blanked) return RewriteResult{};  // PassThrough

  RewriteResult r;
  r.status = RewriteResult::Status::Rewritten;
  Composer composer(in, a, edits);
  if (!composer.ok()) return detail::errorResult(composer.error());
  std::string prelude = detail::buildPrelude(in.traits, a);
  unsigned preludeLines = countLines(prelude) + 1;  // + the separator line
  r.source = prelude + "\n" + composer.compose("<source>", "<source>", preludeLines + 1, &r.lineMap);
  for (const SourceFile& h : in.headers)
    r.headers.push_back(SourceFile{h.name, composer.compose(h.name, h.name, 1, &r.lineMap)});
  r.options = in.options;
  std::string macros = extensionMacroOptions(in.traits);
  if (!r.options.empty() && !macros.empty()) r.options += ' ';
  r.options += macros;
  r.kernels = std::move(a.kernels);
  r.contextFunctions = std::move(a.contextFunctions);
  r.externalFunctions = std::move(a.externalFunctions);
  r.strategy = in.traits.strategy;
  if (!note.empty()) r.log = note + "\n";
  r.log += a.warnings;
  return r;
}

// ---- cache ---------------------------------------------------------------------------------

using Key = std::array<uint8_t, 20>;
struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::size_t h = 0;
    for (std::size_t i = 0; i < sizeof(std::size_t); ++i) h = (h << 8) | k[i];
    return h;
  }
};

Key cacheKey(const RewriteInput& in) {
  llvm::SHA1 sha;
  auto field = [&sha](std::string_view s) {
    uint64_t n = s.size();
    sha.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(&n), sizeof n));
    sha.update(llvm::StringRef(s.data(), s.size()));
  };
  field(in.source);
  for (const SourceFile& h : in.headers) {
    field(h.name);
    field(h.text);
  }
  field("\x01options");
  field(in.options);
  field(in.compiledObject ? "\x01object" : "\x01program");
  for (const ContextFunction& f : in.externalContext) {
    field(f.name);
    for (const std::string& family : f.families) field(family);
    field(std::to_string(f.widestBytes));
  }
  const DeviceTraits& t = in.traits;
  std::string traits = std::string(strategyName(t.strategy)) + "|" +
                       std::to_string(t.defaultSubGroupSize) + "|" + std::to_string(t.fp16) +
                       std::to_string(t.fp64) + std::to_string(t.images) +
                       std::to_string(t.readWriteImages) + "|" +
                       std::to_string(t.openclCVersion) + "|" +
                       std::to_string(t.nativeSubGroupSize) + "|" +
                       std::to_string(t.nvidiaComputeCapability) + "|" +
                       std::to_string(t.khrTestDouble) + std::to_string(t.khrTestMinimal) + "|";
  for (unsigned s : t.supportedSubGroupSizes) traits += std::to_string(s) + ",";
  traits += "|" + std::to_string(t.deviceOpenclVersion) + "|";
  for (const std::string& e : t.deviceExtensions) traits += e + " ";
  traits += "|";
  for (const std::string& f : t.openclCFeatures) traits += f + " ";
  field(traits);
  return sha.result();
}

// Whether the files a result was computed from still read as they did.
bool diskFilesUnchanged(const std::vector<SourceFile>& files) {
  for (const SourceFile& f : files) {
    std::string now;
    if (!readSmallFile(f.name, &now) || now != f.text) return false;
  }
  return true;
}

class Cache {
 public:
  bool get(const Key& k, RewriteResult* out) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = index_.find(k);
      if (it == index_.end()) return false;
      entries_.splice(entries_.begin(), entries_, it->second);
      *out = it->second->second;
    }
    // An autotuner rewrites a header and builds the same source again: the key (source,
    // options, traits) is unchanged, the headers it reads are not.
    return diskFilesUnchanged(out->diskFiles);
  }
  void put(const Key& k, const RewriteResult& r) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(k); it != index_.end()) {
      it->second->second = r;  // recomputed after a header changed
      return;
    }
    entries_.emplace_front(k, r);
    index_[k] = entries_.begin();
    if (entries_.size() > kCapacity) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
  }

 private:
  static constexpr std::size_t kCapacity = 64;  // programs rebuilt for several devices, not more
  std::mutex mutex_;
  std::list<std::pair<Key, RewriteResult>> entries_;
  std::unordered_map<Key, std::list<std::pair<Key, RewriteResult>>::iterator, KeyHash> index_;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: builds may run while the process exits
  return *c;
}

}  // namespace

void applyStrategyDefaults(Strategy strategy, unsigned nativeSize, DeviceTraits* traits) {
  DeviceTraits& t = *traits;
  const StrategyFacts& f = factsOf(strategy);
  t.strategy = strategy;
  // nvidia-ptx's native size is the warp; khr's was probed; the others have none.
  t.nativeSubGroupSize = strategy == Strategy::Khr ? nativeSize
                         : strategy == Strategy::NvidiaPtx ? f.defaultSubGroupSize
                                                            : 0;
  if (strategy == Strategy::Native || strategy == Strategy::Local) {
    t.nvidiaComputeCapability = 0;
    t.khrTestDouble = false;
    t.khrTestMinimal = false;
  }
  t.defaultSubGroupSize = f.defaultSubGroupSize ? f.defaultSubGroupSize
                          : t.nativeSubGroupSize ? t.nativeSubGroupSize
                                                 : 16;
  const unsigned maxS = f.maxSubGroupSize ? f.maxSubGroupSize
                                          : std::max(64u, t.nativeSubGroupSize);
  t.supportedSubGroupSizes.clear();
  for (unsigned s = f.minSubGroupSize; s <= maxS; s *= 2) t.supportedSubGroupSizes.push_back(s);
}

const char* strategyName(Strategy s) { return factsOf(s).name; }

bool parseStrategy(std::string_view text, Strategy* out) {
  for (const StrategyFacts& f : strategies()) {
    const Strategy s = f.strategy;
    if (text == strategyName(s)) {
      if (out) *out = s;
      return true;
    }
  }
  return false;
}

bool mayNeedRewrite(const RewriteInput& input) {
  if (textMayNeedRewrite(input.source) || textMayNeedRewrite(input.options)) return true;
  for (const SourceFile& h : input.headers)
    if (textMayNeedRewrite(h.text)) return true;
  for (const ContextFunction& f : input.externalContext) {
    if (input.source.find(f.name) != std::string::npos) return true;
    for (const SourceFile& h : input.headers)
      if (h.text.find(f.name) != std::string::npos) return true;
  }
  return diskIncludesMayNeedRewrite(input);
}

RewriteResult rewriteProgram(const RewriteInput& input) {
  try {
    if (input.traits.strategy == Strategy::Native || !mayNeedRewrite(input)) return RewriteResult{};
    Key key = cacheKey(input);
    RewriteResult result;
    if (cache().get(key, &result)) return result;
    std::vector<SourceFile> disk;
    result = rewriteUncached(input, &disk);
    result.diskFiles = std::move(disk);
    cache().put(key, result);
    return result;
  } catch (const std::exception& e) {
    return detail::errorResult(std::string("error: the sub-group rewriter failed: ") + e.what());
  } catch (...) {
    return detail::errorResult("error: the sub-group rewriter failed");
  }
}

std::string extensionMacroOptions(const DeviceTraits& traits) {
  std::string out;
  for (const std::string& e : detail::extensionsFor(traits))
    out += (out.empty() ? "-D " : " -D ") + e + "=1";
  return out;
}

}  // namespace isg
