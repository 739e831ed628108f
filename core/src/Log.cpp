#include "tessera/Log.hpp"

#include <memory>
#include <mutex>

namespace tessera {
namespace {

std::mutex& handlerMutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<LogHandler>& handlerSlot() {
  static std::shared_ptr<LogHandler> h;
  return h;
}

}  // namespace

void setLogHandler(LogHandler handler) {
  std::lock_guard<std::mutex> lock(handlerMutex());
  handlerSlot() = handler ? std::make_shared<LogHandler>(std::move(handler)) : nullptr;
}

void logMessage(LogLevel level, const std::string& message) {
  std::shared_ptr<LogHandler> h;
  {
    std::lock_guard<std::mutex> lock(handlerMutex());
    h = handlerSlot();
  }
  if (h) (*h)(level, message);  // outside the lock: a handler may log or set a handler
}

}  // namespace tessera
