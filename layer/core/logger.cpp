// SPDX-License-Identifier: MIT
#include "core/logger.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace isg {
namespace {

struct LogSink {
  std::mutex mutex;
  std::FILE* file = nullptr;  // nullptr: stderr
  std::atomic<int> level{static_cast<int>(LogLevel::Warning)};
};

// Never destroyed: the layer may still log from other threads or atexit handlers of the
// application after static destructors have run.
LogSink& sink() {
  static LogSink* s = new LogSink;
  return *s;
}

const char* levelName(LogLevel level) {
  switch (level) {
    case LogLevel::Error:
      return "error";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Info:
      return "info";
    case LogLevel::Debug:
      return "debug";
  }
  return "?";
}

}  // namespace

void configureLog(LogLevel level, const std::string& file) {
  LogSink& s = sink();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.level = static_cast<int>(level);
  if (s.file) {
    std::fclose(s.file);
    s.file = nullptr;
  }
  if (!file.empty()) {
    s.file = std::fopen(file.c_str(), "a");
    if (!s.file)
      std::fprintf(stderr, "[isg] warning: cannot open ISG_LOG_FILE '%s'; logging to stderr\n",
                   file.c_str());
  }
}

bool logEnabled(LogLevel level) {
  return static_cast<int>(level) <= sink().level.load(std::memory_order_relaxed);
}

void writeLog(LogLevel level, const std::string& message) {
  LogSink& s = sink();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::FILE* out = s.file ? s.file : stderr;
  std::fprintf(out, "[isg] %s: %s\n", levelName(level), message.c_str());
  std::fflush(out);
}

}  // namespace isg
