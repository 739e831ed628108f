// Status: the result of every fallible call in Tessera. Carries a message a user can act on
// ("Conv 'conv1': input 'x' has 5 channels but the weight expects 8").
#pragma once
#include <string>
#include <utility>

namespace tessera {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from the user: shapes, dtypes, attributes, files
  kNotFound,         // missing input, file, op or kernel
  kUnsupported,      // valid request this build or device cannot do
  kUnavailable,      // a backend or driver that cannot be loaded
  kOutOfMemory,
  kInternal,
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  static Status invalid(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status notFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status outOfMemory(std::string m) { return {StatusCode::kOutOfMemory, std::move(m)}; }
  static Status internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool isOk() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Prefixes context, e.g. the op and node name, keeping the code.
  // "prefix: message", unless the message already starts with it (an op's error that names
  // its node, passed up through the Session, which names the node too).
  Status withContext(const std::string& prefix) const {
    if (isOk() || message_.compare(0, prefix.size() + 2, prefix + ": ") == 0) return *this;
    return Status(code_, prefix + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace tessera

// Returns from the enclosing function when `expr` yields a non-ok Status.
#define TESSERA_RETURN_IF_ERROR(expr)          \
  do {                                         \
    ::tessera::Status _st = (expr);            \
    if (!_st.isOk()) return _st;               \
  } while (0)
