# Sourced by run.sh (or by hand: `. tessera-bundle/env.sh`): makes the bundle's binaries and a
# machine's GPU drivers find each other without installing anything.
#  - Libraries in lib/fallback are used only where the machine has none of that name (or, for
#    the C++ runtime, one too old for this build): links to them go in a private directory on
#    LD_LIBRARY_PATH, so a machine's own copies, which its drivers were built against, win.
#  - Drivers installed outside the loaders' default paths (NVIDIA's container layout puts its
#    Vulkan ICD under /usr/local/nvidia and registers no OpenCL ICD) are added.
#  - Tessera's program and pipeline caches go under the bundle, not the user's home.
TESSERA_BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export TESSERA_BUNDLE

tb_has_lib() {
  local d
  for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/lib64 /lib64 /usr/lib /usr/local/nvidia/lib64 \
           /usr/local/nvidia/lib /usr/lib/wsl/lib; do
    [ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
  done
  return 1
}

TB_LINKS="$TESSERA_BUNDLE/.libs"
rm -rf "$TB_LINKS" && mkdir -p "$TB_LINKS"
for f in "$TESSERA_BUNDLE"/lib/fallback/*; do
  name="$(basename "$f")"
  if system="$(tb_has_lib "$name")"; then
    # The C++ runtime must be at least as new as the one the bundle was built with.
    if [ "$name" = libstdc++.so.6 ] && ! grep -q GLIBCXX_3.4.30 "$system"; then ln -s "$f" "$TB_LINKS/$name"; fi
    continue
  fi
  ln -s "$f" "$TB_LINKS/$name"
done
export LD_LIBRARY_PATH="$TB_LINKS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
  for j in /usr/local/nvidia/share/vulkan/icd.d/*.json /usr/local/nvidia/etc/vulkan/icd.d/*.json; do
    [ -e "$j" ] && export VK_ADD_DRIVER_FILES="${VK_ADD_DRIVER_FILES:+$VK_ADD_DRIVER_FILES:}$j"
  done
fi
if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -z "$(ls /etc/OpenCL/vendors/*.icd 2>/dev/null)" ]; then
  TB_ICDS="$TESSERA_BUNDLE/.icd"
  rm -rf "$TB_ICDS" && mkdir -p "$TB_ICDS"
  # An ICD file names the driver library; the full path, since it may not be on the cache.
  tb_has_lib libnvidia-opencl.so.1 >"$TB_ICDS/nvidia.icd" || rm -f "$TB_ICDS/nvidia.icd"
  tb_has_lib libamdocl64.so >"$TB_ICDS/amdocl64.icd" || rm -f "$TB_ICDS/amdocl64.icd"
  tb_has_lib libigdrcl.so >"$TB_ICDS/intel.icd" || rm -f "$TB_ICDS/intel.icd"
  [ -n "$(ls "$TB_ICDS")" ] && export OCL_ICD_VENDORS="$TB_ICDS"
fi
# The GPU backends `tessera devices` (its output in file $1) lists with a default device.
tb_gpu_backends() {
  local b found=""
  for b in vulkan opencl; do
    if sed -n "/^$b:$/,/^[a-z]*:$/p" "$1" | grep -q "<- default"; then found="$found $b"; fi
  done
  echo $found
}

# The PaddleOCR case `name` (cls, rec, det320, det640) as "label model-file input-shape".
tb_paddleocr_case() {
  case "$1" in
    cls) echo "cls ch_ppocr_mobile_v2.0_cls_infer.onnx 1x3x48x192" ;;
    rec) echo "rec ch_PP-OCRv4_rec_infer.onnx 1x3x48x320" ;;
    det320) echo "det ch_PP-OCRv4_det_infer.onnx 1x3x320x320" ;;
    det640) echo "det ch_PP-OCRv4_det_infer.onnx 1x3x640x640" ;;
    *) return 1 ;;
  esac
}

export XDG_CACHE_HOME="${TESSERA_BUNDLE_CACHE:-$TESSERA_BUNDLE/.cache}"
export TESSERA_ONNX_NODE_DATA="$TESSERA_BUNDLE/data/node"
export PATH="$TESSERA_BUNDLE/bin:$PATH"
