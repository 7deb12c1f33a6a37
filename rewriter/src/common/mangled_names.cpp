// SPDX-License-Identifier: MIT
#include "common/mangled_names.h"

#include <cctype>

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Type.h>

namespace isg::detail {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  bool number(unsigned* out) {
    if (at_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[at_]))) return false;
    unsigned v = 0;
    while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) {
      v = v * 10 + unsigned(s_[at_++] - '0');
      if (v > 4096) return false;
    }
    *out = v;
    return true;
  }
  bool sourceName(std::string* out) {
    unsigned n = 0;
    if (!number(&n) || n == 0 || at_ + n > s_.size()) return false;
    *out = std::string(s_.substr(at_, n));
    at_ += n;
    return true;
  }
  bool done() const { return at_ == s_.size(); }
  bool eat(char c) {
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  // One type; `spelled` is its OpenCL C spelling (pointers as "<pointee>*").
  bool type(std::string* spelled) {
    if (at_ >= s_.size()) return false;
    const char c = s_[at_];
    if (const char* b = builtin(c)) {
      ++at_;
      *spelled = b;
      return true;
    }
    if (c == 'D') {
      if (s_.substr(at_, 2) == "Dh") {
        at_ += 2;
        *spelled = "half";
        return true;
      }
      if (s_.substr(at_, 2) != "Dv") return false;
      at_ += 2;
      unsigned n = 0;
      std::string element;
      if (!number(&n) || !eat('_') || !type(&element)) return false;
      *spelled = element + std::to_string(n);
      subs_.push_back(*spelled);
      return true;
    }
    if (s_.substr(at_, 9) == "U7_Atomic") {  // _Atomic(T): a type of its own (OpenCL's atomic_T)
      at_ += 9;
      std::string value;
      if (!type(&value)) return false;
      *spelled = "atomic_" + value;
      subs_.push_back(*spelled);
      return true;
    }
    if (c == 'P') {
      ++at_;
      std::string pointee;
      if (!qualifiedType(&pointee)) return false;
      *spelled = pointee + "*";
      subs_.push_back(*spelled);
      return true;
    }
    if (c == 'S') {
      ++at_;
      unsigned index = 0;
      if (eat('_')) {
        index = 0;
      } else {
        // Base-36 sequence id, plus one.
        unsigned v = 0;
        bool any = false;
        while (at_ < s_.size() && s_[at_] != '_') {
          const char d = s_[at_++];
          if (std::isdigit(static_cast<unsigned char>(d))) v = v * 36 + unsigned(d - '0');
          else if (d >= 'A' && d <= 'Z') v = v * 36 + unsigned(d - 'A' + 10);
          else return false;
          any = true;
        }
        if (!any || !eat('_')) return false;
        index = v + 1;
      }
      if (index >= subs_.size()) return false;
      *spelled = subs_[index];
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::string name;
      if (!sourceName(&name)) return false;
      *spelled = openclName(name);
      subs_.push_back(*spelled);
      return true;
    }
    return false;
  }

  // Qualifiers (U3AS<n>, K, V, r) then a type: one substitution for the qualified whole.
  bool qualifiedType(std::string* spelled) {
    std::string space;
    std::string cv;
    bool qualified = false;
    for (;;) {
      if (s_.substr(at_, 5) == "U3AS" || s_.substr(at_, 2) == "U3") {
        if (s_.substr(at_, 4) != "U3AS" || at_ + 4 >= s_.size()) return false;
        at_ += 4;
        const char d = s_[at_++];
        static const char* const spaces[] = {"__private ", "__global ", "__constant ", "__local ",
                                             "__generic "};
        if (d < '0' || d > '4') return false;
        space = spaces[d - '0'];
        qualified = true;
      } else if (eat('K')) {
        cv += "const ";
        qualified = true;
      } else if (eat('V')) {
        cv += "volatile ";
        qualified = true;
      } else if (eat('r')) {
        qualified = true;
      } else {
        break;
      }
    }
    std::string inner;
    if (!type(&inner)) return false;
    *spelled = cv + space + inner;
    if (qualified) subs_.push_back(*spelled);
    return true;
  }

 private:
  static const char* builtin(char c) {
    switch (c) {
      case 'v': return "void";
      case 'b': return "bool";
      case 'c': return "char";
      case 'a': return "char";
      case 'h': return "uchar";
      case 's': return "short";
      case 't': return "ushort";
      case 'i': return "int";
      case 'j': return "uint";
      case 'l': return "long";
      case 'm': return "ulong";
      case 'f': return "float";
      case 'd': return "double";
      default: return nullptr;
    }
  }
  // ocl_image2d_ro -> read_only image2d_t; ocl_sampler -> sampler_t.
  static std::string openclName(const std::string& name) {
    if (name == "ocl_sampler") return "sampler_t";
    if (name == "ocl_event") return "event_t";
    if (name.rfind("ocl_image", 0) == 0 && name.size() > 7) {
      std::string base = name.substr(4);  // image2d_ro
      std::string access;
      auto cut = [&](const char* suffix, const char* q) {
        std::string s(suffix);
        if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0) {
          base.resize(base.size() - s.size());
          access = q;
        }
      };
      cut("_ro", "read_only ");
      cut("_wo", "write_only ");
      cut("_rw", "read_write ");
      return access + base + "_t";
    }
    return name;
  }

  std::string_view s_;
  std::size_t at_ = 0;
  std::vector<std::string> subs_;
};

}  // namespace

bool demangleBuiltin(std::string_view mangled, MangledFunction* out) {
  if (mangled.substr(0, 2) != "_Z") return false;
  Parser p(mangled.substr(2));
  MangledFunction f;
  if (!p.sourceName(&f.name)) return false;
  if (mangled.substr(mangled.size() - 1) == "v" && p.eat('v') && p.done()) {
    *out = std::move(f);
    return true;
  }
  while (!p.done()) {
    std::string t;
    if (!p.qualifiedType(&t)) return false;
    f.params.push_back(std::move(t));
  }
  if (f.params.empty()) return false;
  *out = std::move(f);
  return true;
}

// The OpenCL C spelling of an LLVM value type (a builtin's return type), signed where the
// signedness is unknown: the library function returns it through as_<type>().
bool spellValueType(llvm::Type* t, std::string* out) {
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
    std::string element;
    if (!spellValueType(v->getElementType(), &element)) return false;
    *out = element + std::to_string(v->getNumElements());
    return true;
  }
  if (t->isHalfTy()) *out = "half";
  else if (t->isFloatTy()) *out = "float";
  else if (t->isDoubleTy()) *out = "double";
  else if (t->isIntegerTy(8)) *out = "char";
  else if (t->isIntegerTy(16)) *out = "short";
  else if (t->isIntegerTy(32)) *out = "int";
  else if (t->isIntegerTy(64)) *out = "long";
  else return false;
  return true;
}


}  // namespace isg::detail
