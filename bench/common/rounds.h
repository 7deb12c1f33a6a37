// SPDX-License-Identifier: MIT
// --rounds N: a benchmark whose variants must be separate processes (the loader reads
// OPENCL_LAYERS once) starts this executable once per variant per round, the order rotated each
// round (ABC, BCA, CAB, ...), so that the host's drift hits every variant alike. Each case's
// figure is then the median over rounds of each process's median, its spread across rounds.
// The child learns its variant from ISG_BENCH_VARIANT; it may measure more beside it, as
// variants named "<variant>.<what>".
#pragma once

#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <stdlib.h>  // mkdtemp

#include "report.h"
#include "spawn.h"

namespace isgb {

struct RoundVariant {
  std::string name;
  std::string layer;              // OPENCL_LAYERS; empty: the driver alone
  std::vector<std::string> args;  // added to the child's command line
  // Set in the child's environment (an empty value removes the variable): the layer's controls.
  std::vector<std::pair<std::string, std::string>> env = {};
};

// What the rounds measured: per case and variant, one median per round, and whether every
// round's result was verified (1), any was not (0), or none said (-1).
struct RoundResults {
  std::map<std::string, std::map<std::string, std::vector<double>>> medians;
  std::map<std::string, std::map<std::string, int>> verified;
};

// The variant this process is, as its parent said (--rounds), else `alone`.
inline std::string toldVariant(const std::string& alone) {
  const char* told = std::getenv("ISG_BENCH_VARIANT");
  return told && *told ? told : alone;
}

// A scratch folder for the children's JSON and logs, removed with the object.
class RoundsFolder {
 public:
  explicit RoundsFolder(const char* bench) {
    std::string pattern = std::string("/tmp/isg-bench-") + bench + ".XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary folder");
    path_ = pattern;
  }
  ~RoundsFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  RoundsFolder(const RoundsFolder&) = delete;
  RoundsFolder& operator=(const RoundsFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The options a child inherits from this process (not --rounds, --json, --md, --baseline).
inline std::vector<std::string> childOptions(const Options& opt) {
  std::vector<std::string> base = {"/proc/self/exe"};
  if (opt.smoke) base.push_back("--smoke");
  if (opt.reps > 0) base.insert(base.end(), {"--reps", std::to_string(opt.reps)});
  if (opt.warmup >= 0) base.insert(base.end(), {"--warmup", std::to_string(opt.warmup)});
  if (!opt.filter.empty()) base.insert(base.end(), {"--filter", opt.filter});
  return base;
}

// Runs one child of `variant` writing `json` (its log beside it); `env` adds variables.
inline void runChild(const Options& opt, const std::string& folder, const RoundVariant& variant,
                     const std::string& json, std::vector<std::pair<std::string, std::string>> env = {}) {
  std::vector<std::string> args = childOptions(opt);
  args.insert(args.end(), variant.args.begin(), variant.args.end());
  args.insert(args.end(), {"--json", json});
  env.insert(env.end(), variant.env.begin(), variant.env.end());
  env.emplace_back("OPENCL_LAYERS", variant.layer);
  env.emplace_back("ISG_BENCH_VARIANT", variant.name);
  runProcess(args, env, folder + "/" + variant.name + ".log");
}

// opt.rounds rounds of every variant; the children's notes go to `r`.
inline RoundResults runRounds(Report& r, const Options& opt, const std::string& folder,
                              const std::vector<RoundVariant>& variants) {
  RoundResults out;
  r.config("rounds", opt.rounds);
  for (int round = 0; round < opt.rounds; ++round) {
    for (size_t i = 0; i < variants.size(); ++i) {
      const RoundVariant& v = variants[(i + static_cast<size_t>(round)) % variants.size()];
      const std::string json = folder + "/" + v.name + ".json";
      runChild(opt, folder, v, json);
      const Json root = readJsonFile(json);
      for (const Json& n : root.get("notes") ? root.get("notes")->items : std::vector<Json>{})
        if (n.type == Json::Type::String && round == 0) r.note(v.name + ": " + n.text);
      for (const Json& c : root.get("cases") ? root.get("cases")->items : std::vector<Json>{}) {
        const Json* vs = c.get("variants");
        // The child's own variant, and what it measured beside it in the same process
        // (variants named "<its name>.<what>").
        for (const auto& [name, m] : vs ? vs->fields : std::vector<std::pair<std::string, Json>>{}) {
          if (name != v.name && name.rfind(v.name + ".", 0) != 0) continue;
          if (m.get("skipped")) continue;
          out.medians[c.string("name")][name].push_back(m.number("median_ms"));
          const Json* ok = m.get("verified");
          int& flag = out.verified[c.string("name")].try_emplace(name, -1).first->second;
          if (ok && ok->type == Json::Type::Bool) flag = flag != 0 && ok->b ? 1 : 0;
        }
      }
    }
  }
  return out;
}

}  // namespace isgb
