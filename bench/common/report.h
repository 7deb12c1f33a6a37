// SPDX-License-Identifier: MIT
// What every benchmark shares and that needs no OpenCL: command line, statistics, the result
// model (cases x variants x ratios), the table printer, the JSON writer and a small JSON reader
// for baselines written by another process. Header-only and plain C++17 on purpose: the CUDA
// baselines (bench/cuda/*.cu) are compiled by nvcc on the GPU machine from this same header, so
// OpenCL and CUDA results are summarised and written by one piece of code.
#pragma once

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "isg/json.h"

namespace isgb {

// ---- command line --------------------------------------------------------------------------

struct Options {
  bool smoke = false;        // tiny sizes, few repetitions: proves the code runs (CTest)
  int reps = 0;              // 0: the benchmark's default
  int warmup = -1;           // -1: the benchmark's default
  std::string json;          // where the JSON goes (empty: nowhere)
  std::string md;            // where the markdown table goes (empty: nowhere)
  std::string filter;        // only cases whose name contains this
  std::string rewritten;     // bench_build: ISG_DUMP_DIR of an earlier run through the layer
  int rounds = 0;            // bench_host: run its variants as processes, interleaved, N rounds
  // --baseline VARIANT=FILE: the cases of FILE (this schema, written by another process: CUDA,
  // or the same benchmark without the layer) contribute their VARIANT measurement.
  std::vector<std::pair<std::string, std::string>> baselines;
};

// Default repetitions: the option when given, else `full`, or 2 in smoke mode.
inline int reps(const Options& o, int full) { return o.reps > 0 ? o.reps : o.smoke ? 2 : full; }
// Default warm-up launches: the option when given, else `full`, or 1 in smoke mode.
inline int warmups(const Options& o, int full) {
  return o.warmup >= 0 ? o.warmup : o.smoke ? 1 : full;
}

inline void usage(const char* bench) {
  std::printf(
      "usage: %s [--smoke] [--reps N] [--warmup N] [--filter TEXT] [--json FILE] [--md FILE]\n"
      "          [--baseline VARIANT=FILE]... [--rewritten DIR] [--rounds N]\n"
      "A benchmark of bench/ (see bench/README.md); run them all with bench/run-gpu.sh.\n",
      bench);
}

// Returns false when the process should exit at once with status 0 (help, or being started as a
// GoogleTest by tools/device/run-suite.sh, which runs everything staged in .gpu/bin).
inline bool parseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string(name) + " needs a value");
      return argv[++i];
    };
    if (a.rfind("--gtest", 0) == 0) {
      std::printf("%s: a benchmark, not a test; run it with run-gpu.sh (bench/README.md)\n",
                  argv[0]);
      return false;
    } else if (a == "--help" || a == "-h") {
      usage(argv[0]);
      return false;
    } else if (a == "--smoke") {
      o->smoke = true;
    } else if (a == "--reps") {
      o->reps = std::atoi(value("--reps").c_str());
    } else if (a == "--warmup") {
      o->warmup = std::atoi(value("--warmup").c_str());
    } else if (a == "--json") {
      o->json = value("--json");
    } else if (a == "--md") {
      o->md = value("--md");
    } else if (a == "--filter") {
      o->filter = value("--filter");
    } else if (a == "--rewritten") {
      o->rewritten = value("--rewritten");
    } else if (a == "--rounds") {
      o->rounds = std::atoi(value("--rounds").c_str());
    } else if (a == "--baseline") {
      std::string v = value("--baseline");
      auto eq = v.find('=');
      if (eq == std::string::npos) throw std::runtime_error("--baseline wants VARIANT=FILE");
      o->baselines.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else {
      throw std::runtime_error("unknown argument " + a);
    }
  }
  return true;
}

// ---- statistics ----------------------------------------------------------------------------

struct Stats {
  int n = 0;
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0;
  // (p90 - p10) / median in percent: the spread that the table shows next to each median.
  double spreadPct() const { return median > 0 ? 100.0 * (p90 - p10) / median : 0.0; }
};

inline double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  std::size_t lo = static_cast<std::size_t>(pos);
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

inline Stats summarize(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = static_cast<int>(v.size());
  s.median = quantile(v, 0.5);
  s.min = v.front();
  s.max = v.back();
  s.p10 = quantile(v, 0.1);
  s.p90 = quantile(v, 0.9);
  return s;
}

// ---- JSON ----------------------------------------------------------------------------------

// Baselines from other processes are read with the tree's one JSON reader (isg/json.h).
using Json = isg::json::Value;

// The whole of file `path` into *text; false when it cannot be opened.
inline bool readText(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return true;
}

inline Json readJsonFile(const std::string& path) {
  std::string text;
  if (!readText(path, &text)) throw std::runtime_error("cannot read " + path);
  Json root;
  std::string error;
  if (!isg::json::parse(text, &root, &error)) throw std::runtime_error("JSON: " + error);
  return root;
}

// ---- results -------------------------------------------------------------------------------

// One implementation's result for one case.
struct Measurement {
  bool present = false;
  std::string skipped;     // why it was not measured (then present is false)
  Stats ms;                // per repetition, milliseconds
  double rate = NAN;       // work / median time, in the report's rate unit (NaN: none)
  int verified = -1;       // 1 matched the host reference, 0 did not, -1 not checked
  std::string from;        // the baseline file it was imported from, if any
};

enum class RatioKind {
  Speed,  // rate(subject) / rate(base): higher is better, goal is a minimum
  Cost,   // time(subject) / time(base): lower is better, goal is a maximum
};

struct Ratio {
  std::string label;    // column title, e.g. "layer/cuda"
  std::string subject;  // variant names
  std::string base;
  RatioKind kind = RatioKind::Speed;
  double goal = NAN;    // NaN: reported, no goal
  double value = NAN;   // filled by Report::finish, unless given
  bool given = false;   // a value the benchmark computed itself (Report::givenRatio)
};

struct Case {
  std::string name;
  std::map<std::string, Measurement> m;
  std::vector<Ratio> ratios;
  // Case name to look up in a baseline file, per variant (default: this case's name). The
  // cudaMemcpy baseline, for instance, is one case that every block-copy case compares with.
  std::map<std::string, std::string> baselineCase;
  std::string note;
};

inline std::string fmt(const char* f, double v) {
  if (!std::isfinite(v)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

inline std::string isoDate() {
  std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

class Report {
 public:
  // `rateUnit` names what Measurement::rate counts ("G shuffles/s", "GB/s", "ns/call" ...).
  Report(std::string bench, std::string title, std::string rateUnit, Options opt)
      : bench_(std::move(bench)), title_(std::move(title)), unit_(std::move(rateUnit)),
        opt_(std::move(opt)) {}

  const Options& options() const { return opt_; }
  bool wanted(const std::string& caseName) const {
    return opt_.filter.empty() || caseName.find(opt_.filter) != std::string::npos;
  }
  void info(const std::string& key, const std::string& value) { info_.emplace_back(key, value); }
  void config(const std::string& key, double value) { config_.emplace_back(key, value); }
  // Printed under the table and stored in the JSON: what was skipped and why, caveats.
  void note(const std::string& text) {
    if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
    std::printf("note: %s\n", text.c_str());
    std::fflush(stdout);
  }
  void variantOrder(std::vector<std::string> v) { order_ = std::move(v); }

  Case& at(const std::string& name) {
    for (auto& c : cases_)
      if (c->name == name) return *c;
    cases_.push_back(std::make_unique<Case>());
    cases_.back()->name = name;
    return *cases_.back();
  }
  void add(const std::string& caseName, const std::string& variant, const std::vector<double>& ms,
           double work, double workScale, int verified) {
    Measurement& m = at(caseName).m[variant];
    m.present = true;
    m.ms = summarize(ms);
    m.rate = m.ms.median > 0 && work > 0 ? work / (m.ms.median * 1e-3) / workScale : NAN;
    m.verified = verified;
    if (verified == 0) failed_ = true;
    std::printf("  %-34s %-14s median %10.4f ms  spread %5.1f%%  %s %s\n", caseName.c_str(),
                variant.c_str(), m.ms.median, m.ms.spreadPct(),
                std::isfinite(m.rate) ? (fmt("%.4g", m.rate) + " " + unit_).c_str() : "",
                verified == 1 ? "verified" : verified == 0 ? "WRONG RESULT" : "");
    std::fflush(stdout);
  }
  void skip(const std::string& caseName, const std::string& variant, const std::string& why) {
    Measurement& m = at(caseName).m[variant];
    m.present = false;
    m.skipped = why;
  }
  void ratio(const std::string& caseName, const std::string& label, const std::string& subject,
             const std::string& base, RatioKind kind, double goal = NAN) {
    at(caseName).ratios.push_back(Ratio{label, subject, base, kind, goal, NAN});
  }
  // A ratio the benchmark computed from more than two variants' medians.
  void givenRatio(const std::string& caseName, const std::string& label, double value,
                  RatioKind kind, double goal = NAN) {
    at(caseName).ratios.push_back(Ratio{label, "", "", kind, goal, value, true});
  }
  bool anyWrong() const { return failed_; }

  // Imports baselines, computes ratios, prints the table, writes JSON and markdown.
  // Returns the process exit status: 1 if any result was wrong, else 0.
  int finish() {
    for (const auto& b : opt_.baselines) importBaseline(b.first, b.second);
    for (auto& c : cases_)
      for (Ratio& r : c->ratios)
        if (!r.given) r.value = ratioValue(*c, r);
    std::printf("\n%s", markdown().c_str());
    std::fflush(stdout);
    if (!opt_.json.empty()) writeText(opt_.json, json());
    if (!opt_.md.empty()) writeText(opt_.md, markdown());
    return failed_ ? 1 : 0;
  }

  std::string markdown() const {
    std::vector<std::string> variants = variantNames();
    std::vector<std::string> ratioLabels;
    for (const auto& c : cases_)
      for (const Ratio& r : c->ratios)
        if (std::find(ratioLabels.begin(), ratioLabels.end(), r.label) == ratioLabels.end())
          ratioLabels.push_back(r.label);
    std::string o = "### " + bench_ + ": " + title_ + "\n\n";
    for (const auto& kv : info_) o += "- " + kv.first + ": " + kv.second + "\n";
    o += "\n| case |";
    for (const auto& v : variants) o += " " + v + " ms (±%) | " + v + " " + unit_ + " |";
    for (const auto& l : ratioLabels) o += " " + l + " |";
    o += "\n|---|";
    for (std::size_t i = 0; i < variants.size() * 2 + ratioLabels.size(); ++i) o += "---:|";
    o += "\n";
    for (const auto& c : cases_) {
      o += "| " + c->name + " |";
      for (const auto& v : variants) {
        auto it = c->m.find(v);
        if (it == c->m.end() || !it->second.present) {
          o += it == c->m.end() ? " - | - |" : " skipped | - |";
          continue;
        }
        const Measurement& m = it->second;
        o += " " + fmt("%.4g", m.ms.median) + " (" + fmt("%.1f", m.ms.spreadPct()) + ")" +
             (m.verified == 0 ? " WRONG" : "") + " | " + fmt("%.4g", m.rate) + " |";
      }
      for (const auto& l : ratioLabels) {
        const Ratio* r = nullptr;
        for (const Ratio& x : c->ratios)
          if (x.label == l) r = &x;
        o += " " + (r ? ratioText(*r) : std::string("-")) + " |";
      }
      o += "\n";
    }
    // The worst case of every ratio: the line docs/performance.md's goals table needs.
    for (const auto& l : ratioLabels) {
      const Ratio* worst = nullptr;
      const Case* where = nullptr;
      int misses = 0, counted = 0;
      for (const auto& c : cases_)
        for (const Ratio& x : c->ratios) {
          if (x.label != l || !std::isfinite(x.value)) continue;
          ++counted;
          if (std::isfinite(x.goal) && !met(x)) ++misses;
          bool worse = !worst || (x.kind == RatioKind::Speed ? x.value < worst->value : x.value > worst->value);
          if (worse) worst = &x, where = c.get();
        }
      if (worst)
        o += (o.back() == '\n' && o[o.size() - 2] == '|' ? "\n" : "") + std::string("- worst ") + l + ": " +
             ratioText(*worst) + " at " + where->name + " (" + std::to_string(counted) + " cases" +
             (std::isfinite(worst->goal) ? ", " + std::to_string(misses) + " missed" : std::string()) + ")\n";
    }
    std::vector<std::string> skips;
    for (const auto& c : cases_)
      for (const auto& kv : c->m)
        if (!kv.second.present && !kv.second.skipped.empty()) {
          std::string s = kv.first + ": " + kv.second.skipped;
          if (std::find(skips.begin(), skips.end(), s) == skips.end()) skips.push_back(s);
        }
    if (o.back() == '\n' && o[o.size() - 2] == '|') o += "\n";
    for (const auto& s : skips) o += "- skipped " + s + "\n";
    for (const auto& n : notes_) o += "- " + n + "\n";
    return o + "\n";
  }

  std::string json() const {
    using isg::json::Writer;
    constexpr auto kInline = Writer::Layout::Inline;
    Writer w;
    w.beginObject()
        .field("schema", "isg-bench/1")
        .field("bench", bench_)
        .field("title", title_)
        .field("date", isoDate())
        .field("smoke", opt_.smoke)
        .field("rate_unit", unit_)
        .key("info")
        .beginObject(kInline);
    for (const auto& [k, v] : info_) w.field(k, v);
    w.end().key("config").beginObject(kInline);
    for (const auto& [k, v] : config_) w.field(k, v);
    w.end().key("notes").array(notes_).key("cases").beginArray();
    for (const auto& cp : cases_) {
      const Case& c = *cp;
      w.beginObject().field("name", c.name).key("variants").beginObject();
      for (const auto& [name, m] : c.m) {
        w.key(name).beginObject(kInline);
        if (!m.present) {
          w.field("skipped", m.skipped).end();
          continue;
        }
        w.field("median_ms", m.ms.median)
            .field("min_ms", m.ms.min)
            .field("max_ms", m.ms.max)
            .field("p10_ms", m.ms.p10)
            .field("p90_ms", m.ms.p90)
            .field("reps", static_cast<std::uint64_t>(m.ms.n))
            .field("rate", m.rate)
            .key("verified");
        if (m.verified < 0)
          w.null();
        else
          w.value(m.verified == 1);
        if (!m.from.empty()) w.field("from", m.from);
        w.end();
      }
      w.end().key("ratios").beginArray();
      for (const Ratio& r : c.ratios) {
        const bool speed = r.kind == RatioKind::Speed;
        w.beginObject(kInline)
            .field("label", r.label)
            .field("subject", r.subject)
            .field("base", r.base)
            .field("kind", speed ? "speed" : "cost")
            .field("value", r.value)
            .key("goal");
        if (std::isfinite(r.goal))
          w.value((speed ? ">=" : "<=") + fmt("%.2f", r.goal));
        else
          w.null();
        w.key("met");
        if (!std::isfinite(r.goal) || !std::isfinite(r.value))
          w.null();
        else
          w.value(met(r));
        w.end();
      }
      w.end();
      if (!c.note.empty()) w.field("note", c.note);
      w.end();
    }
    return w.end().end().text();
  }

 private:
  static bool met(const Ratio& r) {
    return r.kind == RatioKind::Speed ? r.value >= r.goal : r.value <= r.goal;
  }
  static std::string ratioText(const Ratio& r) {
    if (!std::isfinite(r.value)) return "-";
    std::string s = fmt("%.3f", r.value) + "x";
    if (std::isfinite(r.goal))
      s += std::string(met(r) ? " ok" : " MISS") + " (" + (r.kind == RatioKind::Speed ? ">=" : "<=") +
           fmt("%.2f", r.goal) + ")";
    return s;
  }
  static double ratioValue(const Case& c, const Ratio& r) {
    auto s = c.m.find(r.subject), b = c.m.find(r.base);
    if (s == c.m.end() || b == c.m.end() || !s->second.present || !b->second.present) return NAN;
    if (r.kind == RatioKind::Speed) {
      // Rates, not times: a baseline from another process may have done a different amount of
      // work (its own grid size), and the rate is what both claim per second.
      if (std::isfinite(s->second.rate) && std::isfinite(b->second.rate) && b->second.rate > 0)
        return s->second.rate / b->second.rate;
      return s->second.ms.median > 0 ? b->second.ms.median / s->second.ms.median : NAN;
    }
    return b->second.ms.median > 0 ? s->second.ms.median / b->second.ms.median : NAN;
  }
  std::vector<std::string> variantNames() const {
    std::vector<std::string> v = order_;
    for (const auto& c : cases_)
      for (const auto& kv : c->m)
        if (std::find(v.begin(), v.end(), kv.first) == v.end()) v.push_back(kv.first);
    // Variants named in the order but never measured or skipped anywhere make empty columns.
    std::vector<std::string> used;
    for (const auto& name : v)
      for (const auto& c : cases_)
        if (c->m.count(name)) {
          used.push_back(name);
          break;
        }
    return used;
  }
  void importBaseline(const std::string& variant, const std::string& path) {
    Json root;
    try {
      root = readJsonFile(path);
    } catch (const std::exception& e) {
      note("baseline " + variant + " not imported: " + e.what());
      return;
    }
    for (const auto& n : root.get("notes") ? root.get("notes")->items : std::vector<Json>{})
      if (n.type == Json::Type::String) note(variant + " run: " + n.text);
    const Json* cases = root.get("cases");
    if (!cases) return;
    for (auto& c : cases_) {
      auto key = c->baselineCase.count(variant) ? c->baselineCase[variant] : c->name;
      for (const Json& bc : cases->items) {
        if (bc.string("name") != key) continue;
        const Json* vs = bc.get("variants");
        const Json* v = vs ? vs->get(variant) : nullptr;
        if (!v) continue;
        Measurement& m = c->m[variant];
        m = Measurement{};
        m.from = path;
        if (v->get("skipped")) {
          m.skipped = v->string("skipped");
          continue;
        }
        m.present = true;
        m.ms.median = v->number("median_ms");
        m.ms.min = v->number("min_ms");
        m.ms.max = v->number("max_ms");
        m.ms.p10 = v->number("p10_ms");
        m.ms.p90 = v->number("p90_ms");
        m.ms.n = static_cast<int>(v->number("reps", 0));
        m.rate = v->number("rate");
        const Json* ver = v->get("verified");
        m.verified = ver && ver->type == Json::Type::Bool ? (ver->b ? 1 : 0) : -1;
      }
    }
  }
  static void writeText(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
  }

  std::string bench_, title_, unit_;
  Options opt_;
  std::vector<std::pair<std::string, std::string>> info_;
  std::vector<std::pair<std::string, double>> config_;
  std::vector<std::string> notes_;
  std::vector<std::string> order_;
  std::vector<std::unique_ptr<Case>> cases_;
  bool failed_ = false;
};

// Host wall time in milliseconds (steady).
inline double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Runs a benchmark's body with the shared argument handling and error reporting.
template <class Body>
int runMain(int argc, char** argv, Body body) {
  try {
    Options o;
    if (!parseArgs(argc, argv, &o)) return 0;
    return body(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
}

}  // namespace isgb
