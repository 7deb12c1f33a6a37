// SPDX-License-Identifier: MIT
// The layer's one logger: "[isg] <level>: <message>" lines to stderr or ISG_LOG_FILE, filtered
// by ISG_LOG. The macros build the message only when it will be written, so debug logging
// costs nothing on hot paths when it is off.
#pragma once

#include <sstream>
#include <string>

#include "core/controls.h"

namespace isg {

void configureLog(LogLevel level, const std::string& file);
bool logEnabled(LogLevel level);
void writeLog(LogLevel level, const std::string& message);

}  // namespace isg

#define ISG_LOG_AT(level, stream_expr)               \
  do {                                               \
    if (::isg::logEnabled(level)) {                  \
      std::ostringstream isg_log_stream_;            \
      isg_log_stream_ << stream_expr;                \
      ::isg::writeLog(level, isg_log_stream_.str()); \
    }                                                \
  } while (0)

#define ISG_LOG_ERROR(stream_expr) ISG_LOG_AT(::isg::LogLevel::Error, stream_expr)
#define ISG_LOG_WARNING(stream_expr) ISG_LOG_AT(::isg::LogLevel::Warning, stream_expr)
#define ISG_LOG_INFO(stream_expr) ISG_LOG_AT(::isg::LogLevel::Info, stream_expr)
#define ISG_LOG_DEBUG(stream_expr) ISG_LOG_AT(::isg::LogLevel::Debug, stream_expr)
