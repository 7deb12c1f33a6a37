// SPDX-License-Identifier: MIT
// The conversion specifications of an OpenCL C printf format (OpenCL C 6.15.14.2), read one way
// for both who need them: the prescan, which looks for vector conversions anywhere in a
// program's text, and ptx_printf.cpp, which writes them out element by element.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace isg::detail {

struct PrintfConversion {
  std::size_t begin = 0;  // the '%'
  std::size_t end = 0;    // one past the conversion character (or the text's end)
  std::string spec;       // '%', flags, width and precision: what each element of a vector takes
  unsigned stars = 0;     // '*' widths and precisions, an int argument each
  bool vector = false;    // a 'v' follows the precision
  unsigned lanes = 0;     // the digits after the 'v' (0 where there are none)
  std::string length;     // the length modifier: h, hh, hl, l, ...
  char conversion = 0;    // the conversion character; 0 where the text ends first
};

// The next conversion at or after *at in `text` ("%%" prints a percent sign and is skipped);
// *at moves past it. False where no '%' is left.
bool nextPrintfConversion(std::string_view text, std::size_t* at, PrintfConversion* c);

}  // namespace isg::detail
