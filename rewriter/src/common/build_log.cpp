// SPDX-License-Identifier: MIT
// mapBuildLog: the driver compiled prelude + user text, so its line numbers are off by the
// prelude's length (NVIDIA ignores #line). Diagnostics are rewritten block by block: a block is
// one warning/error line plus the source, caret and note lines that follow it.
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "isg/rewriter.h"

namespace isg {
namespace {

struct Location {
  std::size_t fileBegin = 0, fileEnd = 0;  // the file token within the line
  std::size_t lineBegin = 0, lineEnd = 0;  // the line number
  unsigned line = 0;
  std::string severity;  // "error", "warning", "note", ... or empty (e.g. "In file included")
};

bool startsWith(const std::string& s, std::size_t pos, const char* prefix) {
  return s.compare(pos, std::char_traits<char>::length(prefix), prefix) == 0;
}

// `FILE:LINE:` or `FILE:LINE:COL:` at the start of a line (after "In file included from " or
// "                 from "), followed optionally by a severity (clang, NVIDIA), or preceded by
// one (PoCL).
std::optional<Location> parseLocation(const std::string& line) {
  std::size_t p = 0;
  bool included = false;
  // PoCL puts the severity first: "warning: /path/tempfile_x.cl:721:6: message".
  std::string leadingSeverity;
  for (const char* sev : {"fatal error: ", "error: ", "warning: ", "note: ", "remark: "}) {
    if (startsWith(line, 0, sev)) {
      leadingSeverity = std::string(sev, std::char_traits<char>::length(sev) - 2);
      p = leadingSeverity.size() + 2;
    }
  }
  if (!leadingSeverity.empty()) {
  } else if (startsWith(line, 0, "In file included from ")) {
    p = 22;
    included = true;
  } else {
    std::size_t s = line.find_first_not_of(' ');
    if (s != std::string::npos && s > 0 && startsWith(line, s, "from ")) {
      p = s + 5;
      included = true;
    }
  }
  if (p >= line.size() || std::isspace(static_cast<unsigned char>(line[p]))) return {};
  // The file token ends at the first ':' that is followed by digits and ':' (or the end of an
  // include-chain line, which clang ends with ':' or ',').
  for (std::size_t colon = line.find(':', p); colon != std::string::npos;
       colon = line.find(':', colon + 1)) {
    std::size_t d = colon + 1;
    while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
    if (d == colon + 1 || d >= line.size() || (line[d] != ':' && line[d] != ',')) continue;
    // More digits than any real line number: not a location (std::stoul would throw, and
    // mapBuildLog must survive whatever a driver prints).
    if (d - colon - 1 > 9) continue;
    Location loc;
    loc.fileBegin = p;
    loc.fileEnd = colon;
    loc.lineBegin = colon + 1;
    loc.lineEnd = d;
    loc.line = unsigned(std::stoul(line.substr(colon + 1, d - colon - 1)));
    if (!leadingSeverity.empty()) {
      loc.severity = leadingSeverity;
    } else if (!included) {
      std::size_t q = d + 1;
      while (q < line.size() && std::isdigit(static_cast<unsigned char>(line[q]))) ++q;
      if (q < line.size() && line[q] == ':') ++q;
      while (q < line.size() && line[q] == ' ') ++q;
      for (const char* sev : {"fatal error", "error", "warning", "note", "remark"})
        if (startsWith(line, q, sev) && startsWith(line, q + std::char_traits<char>::length(sev), ":"))
          loc.severity = sev;
    }
    return loc;
  }
  return {};
}

// The clCompileProgram header a driver's file token names, if any.
const SourceFile* namedHeader(const std::string& token, const RewriteResult& r) {
  for (const SourceFile& h : r.headers) {
    if (token == h.name) return &h;
    if (token.size() > h.name.size() &&
        token.compare(token.size() - h.name.size(), h.name.size(), h.name) == 0 &&
        token[token.size() - h.name.size() - 1] == '/')
      return &h;
  }
  return nullptr;
}

// Clang's own pseudo-files: a token pasted by the preprocessor ("<scratch space>"), the
// predefined macros, the command line's -D. Their lines number their own text, never the
// program's (a paste in the application's macro was relabelled as the layer's library).
bool isCompilerPseudoFile(const std::string& token) {
  return token == "<scratch space>" || token == "<built-in>" || token == "<command line>";
}

// A header the driver read from disk itself (not folded into the program): its lines are its own.
bool isDiskHeaderToken(const std::string& token) {
  for (const char* ext : {".h", ".hpp", ".hh", ".inc", ".clh"}) {
    std::size_t n = std::char_traits<char>::length(ext);
    if (token.size() > n && token.compare(token.size() - n, n, ext) == 0) return true;
  }
  return false;
}

struct Mapped {
  std::string line;
  bool inPrelude = false;
};

// The driver's file:line becomes the user's: the line map says which file and line each line
// of the rewritten program (and of each rewritten header) came from, headers read from disk
// and folded into it included.
Mapped mapPrimary(const std::string& line, const Location& loc, const RewriteResult& r) {
  Mapped m{line, false};
  std::string token = line.substr(loc.fileBegin, loc.fileEnd - loc.fileBegin);
  std::string written = "<source>";
  if (const SourceFile* h = namedHeader(token, r)) written = h->name;
  else if (isDiskHeaderToken(token) || isCompilerPseudoFile(token)) return m;
  const LineMapEntry* entry = nullptr;
  unsigned firstUserLine = 0;
  for (const LineMapEntry& e : r.lineMap) {
    if (e.rewrittenFile != written) continue;
    if (firstUserLine == 0 || e.rewrittenFirst < firstUserLine) firstUserLine = e.rewrittenFirst;
    if (loc.line >= e.rewrittenFirst && loc.line - e.rewrittenFirst < e.count) entry = &e;
  }
  if (!entry) {
    if (written == "<source>" && firstUserLine != 0 && loc.line < firstUserLine) {
      m.inPrelude = true;
      m.line = line.substr(0, loc.fileBegin) + "<isg-builtins>:" + std::to_string(loc.line) +
               line.substr(loc.lineEnd);
    }
    return m;
  }
  const std::string original = std::to_string(loc.line - entry->rewrittenFirst + entry->originalFirst);
  if (entry->originalFile == written)
    m.line = line.substr(0, loc.lineBegin) + original + line.substr(loc.lineEnd);
  else
    m.line = line.substr(0, loc.fileBegin) + entry->originalFile + ":" + original +
             line.substr(loc.lineEnd);
  return m;
}

// The line's location, and the one clang writes beside it for a diagnostic inside a macro
// expansion, "<Spelling=FILE:L:C>": both name the rewritten text.
Mapped mapLine(const std::string& line, const Location& loc, const RewriteResult& r) {
  Mapped m = mapPrimary(line, loc, r);
  const std::string marker = "<Spelling=";
  const std::size_t at = m.line.find(marker);
  if (at == std::string::npos) return m;
  const std::string inner = m.line.substr(at + marker.size());
  if (auto spelling = parseLocation(inner); spelling && spelling->severity.empty())
    m.line = m.line.substr(0, at + marker.size()) + mapPrimary(inner, *spelling, r).line;
  return m;
}

bool isSummary(const std::string& line) {
  // "2 warnings generated." / "1 warning and 1 error generated."
  return !line.empty() && std::isdigit(static_cast<unsigned char>(line[0])) &&
         line.find(" generated.") != std::string::npos;
}

}  // namespace

std::string mapBuildLog(const std::string& driverLog, const RewriteResult& result) {
  if (result.status != RewriteResult::Status::Rewritten) return driverLog;

  std::vector<std::string> lines;
  for (std::size_t start = 0; start < driverLog.size();) {
    std::size_t end = driverLog.find('\n', start);
    if (end == std::string::npos) end = driverLog.size();
    lines.push_back(driverLog.substr(start, end - start));
    start = end + 1;
  }
  bool trailingNewline = !driverLog.empty() && driverLog.back() == '\n';

  std::string out;
  std::vector<std::string> block;      // lines of the current diagnostic
  std::vector<std::string> includes;   // "In file included from" lines waiting for their diagnostic
  bool dropBlock = false;
  auto flush = [&] {
    if (!dropBlock)
      for (const std::string& l : block) out += l + "\n";
    block.clear();
    dropBlock = false;
  };
  for (const std::string& line : lines) {
    auto loc = parseLocation(line);
    if (isSummary(line)) {
      flush();
      for (const std::string& l : includes) out += l + "\n";
      includes.clear();
      out += line + "\n";
      continue;
    }
    if (loc && loc->severity.empty()) {  // part of an include chain
      includes.push_back(mapLine(line, *loc, result).line);
      continue;
    }
    if (loc && loc->severity != "note") {
      flush();
      Mapped m = mapLine(line, *loc, result);
      dropBlock = m.inPrelude && loc->severity != "error" && loc->severity != "fatal error";
      block = std::move(includes);
      includes.clear();
      block.push_back(m.line);
      continue;
    }
    std::string mapped = loc ? mapLine(line, *loc, result).line : line;
    for (std::string& l : includes) block.push_back(std::move(l));
    includes.clear();
    block.push_back(mapped);
  }
  flush();
  for (const std::string& l : includes) out += l + "\n";
  if (!trailingNewline && !out.empty()) out.pop_back();
  return out;
}

}  // namespace isg
