// SPDX-License-Identifier: MIT
// The layer's configuration, generated from controls.def. This header and controls.cpp depend on
// nothing but the standard library (and the header-only strategies table) so that
// tools/gen-controls-doc can expand the same table.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "isg/strategies.h"

namespace isg {

enum class LogLevel { Error, Warning, Info, Debug };

// ISG_STRATEGY: Auto detects per device; the others force one strategy of isg/strategies.def.
enum class StrategyChoice {
  Auto,
#define ISG_STRATEGY_CHOICE(e, ...) e,
  ISG_STRATEGIES(ISG_STRATEGY_CHOICE)
#undef ISG_STRATEGY_CHOICE
};
// The strategy a choice other than Auto forces.
inline Strategy forcedStrategy(StrategyChoice c) {
  return static_cast<Strategy>(static_cast<int>(c) - 1);
}

// ISG_NVIDIA_FRONTEND: which compiler builds OpenCL C source on NVIDIA devices
// (docs/design.md, "Build paths on NVIDIA").
enum class FrontEndChoice { Driver, Layer, Auto, Every };

// ISG_LAUNCH_VARIANTS: which kernels run a variant built for their launch's work-group size
// (layer/launch/launch_variants.h).
enum class VariantChoice { Off, Auto, On, Wait };

// ISG_PACK_WORK_GROUPS: which launches run a kernel's packed copy (layer/launch/launch_plan.cpp).
enum class PackChoice { Off, On, Auto };

// One parser, printer and description per control type; a row of controls.def with a type that
// has none of these does not compile.
bool parseControlValue(std::string_view text, LogLevel* out);
bool parseControlValue(std::string_view text, StrategyChoice* out);
bool parseControlValue(std::string_view text, FrontEndChoice* out);
bool parseControlValue(std::string_view text, VariantChoice* out);
bool parseControlValue(std::string_view text, PackChoice* out);
bool parseControlValue(std::string_view text, bool* out);
bool parseControlValue(std::string_view text, unsigned* out);
bool parseControlValue(std::string_view text, std::string* out);

std::string formatControlValue(LogLevel value);
std::string formatControlValue(StrategyChoice value);
std::string formatControlValue(FrontEndChoice value);
std::string formatControlValue(VariantChoice value);
std::string formatControlValue(PackChoice value);
std::string formatControlValue(bool value);
std::string formatControlValue(unsigned value);
std::string formatControlValue(const std::string& value);

// What a value of the type may be, for docs/controls.md.
const char* controlTypeDescription(const LogLevel*);
const char* controlTypeDescription(const StrategyChoice*);
const char* controlTypeDescription(const FrontEndChoice*);
const char* controlTypeDescription(const VariantChoice*);
const char* controlTypeDescription(const PackChoice*);
const char* controlTypeDescription(const bool*);
const char* controlTypeDescription(const unsigned*);
const char* controlTypeDescription(const std::string*);

// A default that does not parse is a bug in controls.def; the default-constructed value is
// used and gen-controls-doc (run as a test) reports it.
template <class T>
T parsedDefault(const char* text) {
  T value{};
  parseControlValue(text, &value);
  return value;
}

#include "core/controls.def"

struct Config {
#define ISG_CONTROL(type, name, def, doc) type name = parsedDefault<type>(def);
  ISG_CONTROLS(ISG_CONTROL)
#undef ISG_CONTROL
  // The controls the environment names ("ISG_X"), valid or not: a control that does not apply
  // to a device is said so only where the user asked for it.
  std::vector<std::string> named;
  bool isNamed(std::string_view variable) const {
    for (const std::string& n : named)
      if (n == variable) return true;
    return false;
  }
};

// One row of the table as text, for the documentation generator.
struct ControlDescription {
  std::string environmentVariable;  // ISG_<name>
  std::string type;                 // controlTypeDescription
  std::string defaultText;          // as written in controls.def
  std::string doc;
  bool defaultParses = true;
};
std::vector<ControlDescription> describeControls();

// An environment variable named ISG_* that is no control: a note saying so, and in *typo
// whether it is within two edits of a control's name (which the note then suggests). "" for a
// control or a name outside ISG_*.
std::string unknownControlNote(const std::string& variable, bool* typo);

// Reads every control from the environment (`lookup` returns nullptr for unset variables).
// Invalid values keep the default and are described in *problems; *nonDefaults lists
// "ISG_X=value" for each control that differs from its default.
Config loadConfig(const std::function<const char*(const char*)>& lookup,
                  std::vector<std::string>* problems, std::vector<std::string>* nonDefaults);

}  // namespace isg
