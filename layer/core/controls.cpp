// SPDX-License-Identifier: MIT
#include "core/controls.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

namespace isg {
namespace {

struct NamedValue {
  const char* name;
  int value;
};

template <class Enum, std::size_t N>
bool parseNamed(std::string_view text, const NamedValue (&names)[N], Enum* out) {
  for (const NamedValue& n : names) {
    if (text == n.name) {
      *out = static_cast<Enum>(n.value);
      return true;
    }
  }
  return false;
}

template <class Enum, std::size_t N>
std::string formatNamed(Enum value, const NamedValue (&names)[N]) {
  for (const NamedValue& n : names)
    if (static_cast<int>(value) == n.value) return n.name;
  return "?";
}

const NamedValue kLogLevelNames[] = {{"error", static_cast<int>(LogLevel::Error)},
                                     {"warning", static_cast<int>(LogLevel::Warning)},
                                     {"info", static_cast<int>(LogLevel::Info)},
                                     {"debug", static_cast<int>(LogLevel::Debug)}};

const NamedValue kFrontEndNames[] = {{"driver", static_cast<int>(FrontEndChoice::Driver)},
                                     {"layer", static_cast<int>(FrontEndChoice::Layer)},
                                     {"auto", static_cast<int>(FrontEndChoice::Auto)},
                                     {"every", static_cast<int>(FrontEndChoice::Every)}};
const NamedValue kVariantNames[] = {{"off", static_cast<int>(VariantChoice::Off)},
                                    {"auto", static_cast<int>(VariantChoice::Auto)},
                                    {"on", static_cast<int>(VariantChoice::On)},
                                    {"wait", static_cast<int>(VariantChoice::Wait)}};

}  // namespace

bool parseControlValue(std::string_view text, FrontEndChoice* out) {
  return parseNamed(text, kFrontEndNames, out);
}
bool parseControlValue(std::string_view text, VariantChoice* out) {
  return parseNamed(text, kVariantNames, out);
}
bool parseControlValue(std::string_view text, LogLevel* out) {
  return parseNamed(text, kLogLevelNames, out);
}
// "auto" or a strategy's name from isg/strategies.def.
bool parseControlValue(std::string_view text, StrategyChoice* out) {
  if (text == "auto") {
    *out = StrategyChoice::Auto;
    return true;
  }
  for (const StrategyFacts& f : strategies()) {
    if (text == f.name) {
      *out = static_cast<StrategyChoice>(static_cast<int>(f.strategy) + 1);
      return true;
    }
  }
  return false;
}
bool parseControlValue(std::string_view text, bool* out) {
  if (text == "1" || text == "true" || text == "on" || text == "yes") {
    *out = true;
    return true;
  }
  if (text == "0" || text == "false" || text == "off" || text == "no") {
    *out = false;
    return true;
  }
  return false;
}
// "auto", or the boolean it was before, in any of its spellings.
bool parseControlValue(std::string_view text, PackChoice* out) {
  if (text == "auto") {
    *out = PackChoice::Auto;
    return true;
  }
  bool on = false;
  if (!parseControlValue(text, &on)) return false;
  *out = on ? PackChoice::On : PackChoice::Off;
  return true;
}
bool parseControlValue(std::string_view text, unsigned* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  std::string copy(text);
  errno = 0;
  unsigned long long value = std::strtoull(copy.c_str(), nullptr, 10);
  if (errno != 0 || value > UINT_MAX) return false;
  *out = static_cast<unsigned>(value);
  return true;
}
bool parseControlValue(std::string_view text, std::string* out) {
  *out = std::string(text);
  return true;
}

std::string formatControlValue(LogLevel value) { return formatNamed(value, kLogLevelNames); }
std::string formatControlValue(StrategyChoice value) {
  return value == StrategyChoice::Auto ? "auto" : factsOf(forcedStrategy(value)).name;
}
std::string formatControlValue(FrontEndChoice value) { return formatNamed(value, kFrontEndNames); }
std::string formatControlValue(VariantChoice value) { return formatNamed(value, kVariantNames); }
std::string formatControlValue(bool value) { return value ? "1" : "0"; }
std::string formatControlValue(PackChoice value) {
  return value == PackChoice::Auto ? "auto" : formatControlValue(value == PackChoice::On);
}
std::string formatControlValue(unsigned value) { return std::to_string(value); }
std::string formatControlValue(const std::string& value) { return value; }

const char* controlTypeDescription(const LogLevel*) { return "error | warning | info | debug"; }
const char* controlTypeDescription(const StrategyChoice*) {
  static const std::string names = [] {
    std::string s = "auto";
    for (const StrategyFacts& f : strategies()) s += std::string(" | ") + f.name;
    return s;
  }();
  return names.c_str();
}
const char* controlTypeDescription(const FrontEndChoice*) {
  return "driver | layer | auto | every";
}
const char* controlTypeDescription(const VariantChoice*) { return "off | auto | on | wait"; }
const char* controlTypeDescription(const bool*) {
  return "0 | 1 (also no | yes, false | true, off | on)";
}
const char* controlTypeDescription(const PackChoice*) {
  static const std::string names = std::string("auto | ") + controlTypeDescription(static_cast<const bool*>(nullptr));
  return names.c_str();
}
const char* controlTypeDescription(const unsigned*) { return "unsigned integer"; }
const char* controlTypeDescription(const std::string*) { return "text"; }

std::vector<ControlDescription> describeControls() {
  std::vector<ControlDescription> rows;
#define ISG_CONTROL(type, name, def, doc)                                                         \
  {                                                                                               \
    type probe{};                                                                                 \
    rows.push_back({"ISG_" #name, controlTypeDescription(static_cast<const type*>(nullptr)), def, \
                    doc, parseControlValue(def, &probe)});                                        \
  }
  ISG_CONTROLS(ISG_CONTROL)
#undef ISG_CONTROL
  return rows;
}

namespace {

// Levenshtein distance, enough for names of a few dozen characters.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string unknownControlNote(const std::string& variable, bool* typo) {
  *typo = false;
  if (variable.rfind("ISG_", 0) != 0) return "";
  std::string nearest;
  std::size_t best = 3;
  static const char* const kVariables[] = {
#define ISG_CONTROL(type, name, def, doc) "ISG_" #name,
      ISG_CONTROLS(ISG_CONTROL)
#undef ISG_CONTROL
  };
  for (const char* control : kVariables) {
    if (variable == control) return "";
    const std::size_t d = editDistance(variable, control);
    if (d < best) {
      best = d;
      nearest = control;
    }
  }
  *typo = !nearest.empty();
  return variable + " is not a control of the layer (docs/controls.md); ignored" +
         (*typo ? "; did you mean " + nearest + "?" : "");
}

Config loadConfig(const std::function<const char*(const char*)>& lookup,
                  std::vector<std::string>* problems, std::vector<std::string>* nonDefaults) {
  Config config;
#define ISG_CONTROL(type, name, def, doc)                                              \
  if (const char* text = lookup("ISG_" #name)) {                                       \
    config.named.push_back("ISG_" #name);                                              \
    type value{};                                                                      \
    if (parseControlValue(text, &value)) {                                             \
      config.name = value;                                                             \
    } else if (problems) {                                                             \
      problems->push_back(std::string("ISG_" #name "='") + text + "' is not " +        \
                          controlTypeDescription(static_cast<const type*>(nullptr)) +  \
                          "; keeping the default '" + def + "'");                      \
    }                                                                                  \
  }                                                                                    \
  if (nonDefaults &&                                                                   \
      formatControlValue(config.name) != formatControlValue(parsedDefault<type>(def))) \
    nonDefaults->push_back("ISG_" #name "=" + formatControlValue(config.name));
  ISG_CONTROLS(ISG_CONTROL)
#undef ISG_CONTROL
  return config;
}

}  // namespace isg
