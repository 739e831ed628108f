// "auto": the backends a Session should be given on this machine, best first (the `tessera`
// command's and the Python module's `--backend auto` / backend="auto").
//  - A GPU backend is used only when its device is a GPU: a driver that runs on the CPU
//    (lavapipe, PoCL) is slower than the CPU backend, so it is left out unless named.
//  - Where Vulkan and OpenCL both drive a GPU, the one faster on a small conv net goes first
//    (Vulkan on a tie). That is measured once per pair of devices and precision, then kept in
//    the cache directory ($TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else
//    ~/.cache/tessera; an empty TESSERA_CACHE_DIR keeps nothing), so later choices are free.
//  - The CPU backend comes last, always.
// TESSERA_AUTO_ANY_DEVICE=1 counts CPU-run drivers as GPUs (for tests of the measuring).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tessera/Backend.hpp"

namespace tessera {

struct AutoBackendChoice {
  std::vector<BackendType> backends;               // best first; ends with the CPU
  std::vector<std::pair<BackendType, double>> ms;  // the conv net's median ms per GPU backend, when compared
  bool measured = false;                           // timed now (false: read from the cache, or one GPU or none)
  std::vector<std::string> notes;                  // a line per backend left out, and how the order was set
};

AutoBackendChoice chooseAutoBackends(const BackendOptions& options);

}  // namespace tessera
