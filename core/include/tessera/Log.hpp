// Notes from the library that are not errors (a corrupt cache file discarded and rebuilt,
// ...). Library code never prints: the application decides where notes go. By default they
// are dropped; the `tessera` command prints them to stderr. Thread-safe.
#pragma once
#include <functional>
#include <string>

namespace tessera {

enum class LogLevel { kNote, kWarning };
using LogHandler = std::function<void(LogLevel level, const std::string& message)>;

void setLogHandler(LogHandler handler);  // an empty handler drops notes again
void logMessage(LogLevel level, const std::string& message);

}  // namespace tessera
