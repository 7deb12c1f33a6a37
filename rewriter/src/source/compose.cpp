// SPDX-License-Identifier: MIT
// Applying edits and composing the driver's text with its line map (compose.h).
#include "source/compose.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace isg::detail {
namespace {

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

unsigned countLines(std::string_view text) {
  return unsigned(std::count(text.begin(), text.end(), '\n'));
}

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

Composer::Composer(const RewriteInput& in, const detail::Analysis& a,
                   std::vector<detail::FileEdit> edits)
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

std::string Composer::compose(const std::string& name, const std::string& written, unsigned first,
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

std::string Composer::marker(std::size_t i) {
  return "\x01isg-fold-" + std::to_string(i) + "\x01";
}

void Composer::expand(const std::string& name, int depth, std::vector<Line>* out) {
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

}  // namespace isg::detail
