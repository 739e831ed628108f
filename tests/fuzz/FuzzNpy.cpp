// libFuzzer target: bytes -> the .npy reader of the `tessera` command.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/cli/Npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessera::Tensor t;
  tessera::cli::parseNpy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy", &t);
  return 0;
}
