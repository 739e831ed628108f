#!/usr/bin/env bash
# Runs the CPU's AVX-512 kernels on a machine without AVX-512: Bochs emulates a Skylake-X
# (AVX-512 F, CD, BW, DQ, VL) that boots Debian's kernel on a RAM disk holding this build,
# and inside it, with TESSERA_CPU_ISA=avx512, the ONNX node conformance run, the PaddleOCR
# cases (against ONNX Runtime's outputs, computed here first) and the CPU op tests of the
# CTests cpu_isa_<isa>_ops. The CTests cpu_isa_avx512_* skip where the CPU lacks AVX-512;
# this is how those paths are still run and judged on such a host. Emulation is slow (one
# core): booting takes about 3 minutes, the conformance run 1, the PaddleOCR cases about 5,
# so it is not part of scripts/test.sh. The guest has been seen to stall (go idle, nothing
# printed) after 8-10 minutes of running the op tests, at different tests each time, each of
# which passes in a boot of its own: run the op tests in parts with --ops-filter (a gtest
# filter of some of tests/cpu/isa_op_tests.txt's tests), each part its own boot.
#
#   tests/cpu/avx512_emulated.sh [--build DIR] [--only conformance|paddleocr|ops]...
#       [--ops-filter GTEST_FILTER] [--timeout SECONDS] [--work DIR]
#
# Needs Debian's bochs, bochs-term, bochsbios, vgabios, isolinux, syslinux-common, xorriso,
# busybox-static and cpio (installed with apt-get when missing) and a Debian kernel image
# (apt-get download; kept in the work directory). Exits 0 when every part run passed, 1
# when one failed, 2 when the guest did not finish. The guest's console is kept in
# WORK/console.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build"
WORK="${TMPDIR:-/tmp}/tessera-avx512-emulated"
TIMEOUT=7200
PARTS=()
OP_FILTER=""  # default: the CTests cpu_isa_<isa>_ops' filter
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD="$(cd "$2" && pwd)"; shift 2 ;;
    --only) PARTS+=("$2"); shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --ops-filter) OP_FILTER="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--only conformance|paddleocr|ops]... [--ops-filter F] [--timeout S] [--work DIR]" >&2
       exit 1 ;;
  esac
done
[ ${#PARTS[@]} -gt 0 ] || PARTS=(conformance paddleocr ops)
for part in "${PARTS[@]}"; do
  case "$part" in
    conformance|paddleocr|ops) ;;
    *) echo "avx512_emulated: --only takes conformance, paddleocr or ops, not '$part'" >&2; exit 1 ;;
  esac
done
want() { [[ " ${PARTS[*]} " == *" $1 "* ]]; }

TESSERA="$BUILD/tessera"
TESTS="$BUILD/tests/tessera_tests"
NODE_DATA=/usr/share/libonnx-testdata/data/node
MODELS="$ROOT/third_party/models/paddleocr"
for f in "$TESSERA" "$TESTS"; do
  [ -x "$f" ] || { echo "avx512_emulated: no $f: build first (scripts/setup.sh --build-only)" >&2; exit 1; }
done

# ---- tools and the kernel ---------------------------------------------------------------
PACKAGES=(bochs bochs-term bochsbios vgabios isolinux syslinux-common xorriso busybox-static cpio)
missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "avx512_emulated: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
fi
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
if ! ls "$WORK"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
  image="$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/{print $2; exit}')"
  [ -n "$image" ] || { echo "avx512_emulated: apt knows no linux-image-amd64 (run apt-get update)" >&2; exit 1; }
  (cd "$WORK" && apt-get download "$image" >/dev/null 2>&1)
  mkdir -p "$WORK/kernel"
  dpkg-deb --fsys-tarfile "$WORK"/"$image"_*.deb | tar -x -C "$WORK/kernel" ./boot
  rm -f "$WORK"/"$image"_*.deb
fi
KERNEL="$(ls "$WORK"/kernel/boot/vmlinuz-* | head -1)"

# ---- what the guest checks against: ONNX Runtime's PaddleOCR outputs, computed here -------
if want paddleocr; then
  rm -rf "$WORK/paddleocr" && mkdir -p "$WORK/paddleocr"
  kept="$(/usr/bin/python3 "$ROOT/tests/models/check_paddleocr.py" --tessera "$TESSERA" --backend cpu \
          --threads 1 --keep | awk '/work directory kept:/{print $4}')"
  [ -d "$kept" ] || { echo "avx512_emulated: the PaddleOCR references were not written" >&2; exit 1; }
  for case_dir in "$kept"/*/; do
    name="$(basename "$case_dir")"
    mkdir -p "$WORK/paddleocr/$name/ref"
    cp "$case_dir/x.npy" "$WORK/paddleocr/$name/"
    for f in "$case_dir"/ort/*.npy; do  # `tessera diff --reference DIR` reads DIR/index.tsv
      cp "$f" "$WORK/paddleocr/$name/ref/"
      printf '%s\t%s\n' "$(basename "$f" .npy)" "$(basename "$f")" >>"$WORK/paddleocr/$name/ref/index.tsv"
    done
  done
  rm -rf "$kept"
fi

# ---- the RAM disk: busybox, the build and its libraries, the data, an init script ----------
ROOTFS="$WORK/rootfs"
rm -rf "$ROOTFS" && mkdir -p "$ROOTFS"/{bin,proc,sys,dev,tmp}
cp /bin/busybox "$ROOTFS/bin/busybox"
place() {  # a file or folder at its own absolute path in the guest
  mkdir -p "$ROOTFS$(dirname "$1")"
  cp -aL "$1" "$ROOTFS$1"
}
for b in "$TESSERA" "$TESTS"; do
  place "$b"
  for lib in $(ldd "$b" | awk '/=> \//{print $3} /^[ \t]*\//{print $1}'); do place "$lib"; done
done
place "$ROOT/tests/conformance/onnx_node_in_scope.txt"
want conformance && place "$NODE_DATA"
want paddleocr && { place "$MODELS"; place "$WORK/paddleocr"; }
[ -n "$OP_FILTER" ] || OP_FILTER="$(grep -v '^#' "$ROOT/tests/cpu/isa_op_tests.txt" | head -1)"

cat >"$ROOTFS/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
# LD_BIND_NOW: glibc's lazy binding saves the vector registers with XSAVEC (programs still
# see its CPUID bit) and restores them with XRSTOR, which faulted here (a general-protection
# fault in ld.so's resolver).
export HOME=/tmp TESSERA_CPU_ISA=avx512 LD_BIND_NOW=1
echo "=== devices"
$TESSERA devices 2>&1 | grep -m1 'kernels:'
if [ "$(want conformance && echo 1)" = 1 ]; then
  echo "=== conformance"
  $TESSERA conformance $NODE_DATA --list $ROOT/tests/conformance/onnx_node_in_scope.txt --backend cpu 2>&1 \
    | grep -v '^PASS '
fi
if [ "$(want paddleocr && echo 1)" = 1 ]; then
  echo "=== paddleocr"
  for d in $WORK/paddleocr/*; do
    n=\$(basename \$d)
    case \$n in cls*) m=ch_ppocr_mobile_v2.0_cls_infer.onnx;; det*) m=ch_PP-OCRv4_det_infer.onnx;; *) m=ch_PP-OCRv4_rec_infer.onnx;; esac
    if $TESSERA diff $MODELS/\$m --backend cpu --threads 1 --reference \$d/ref --input x=\$d/x.npy >/tmp/diff.txt 2>&1; then
      echo "PASS \$n"
    else
      echo "FAIL \$n"; cat /tmp/diff.txt
    fi
  done
fi
if [ "$(want ops && echo 1)" = 1 ]; then
  echo "=== ops"
  $TESTS --gtest_filter='$OP_FILTER' 2>&1 | grep -E '^\[ +(OK|FAILED|PASSED) +\]|Failure|tests? from .* ran'
fi
echo "=== end"
poweroff -f
EOF
chmod +x "$ROOTFS/init"

ISO="$WORK/iso"
rm -rf "$ISO" && mkdir -p "$ISO/isolinux"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$ISO/isolinux/"
cp "$KERNEL" "$ISO/vmlinuz"
(cd "$ROOTFS" && find . | cpio -o -H newc --quiet) >"$ISO/initrd.img"
# clearcpuid: Bochs 2.7 reports the compacted XSAVE area's size as the standard one's, and
# Linux, finding the two differ, would turn XSAVE (and with it AVX) off; without XSAVES and
# XSAVEC the kernel keeps the standard layout, whose size Bochs reports right.
cat >"$ISO/isolinux/isolinux.cfg" <<'EOF'
default linux
prompt 0
timeout 0
label linux
  kernel /vmlinuz
  append initrd=/initrd.img console=ttyS0,115200 loglevel=3 mitigations=off clearcpuid=xsaves,xsavec
EOF
xorriso -as mkisofs -quiet -o "$WORK/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
  -no-emul-boot -boot-load-size 4 -boot-info-table "$ISO" 2>/dev/null

cat >"$WORK/bochsrc" <<EOF
memory: guest=2048, host=2048
cpu: model=corei7_skylake_x, count=1, ips=200000000
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path=$WORK/boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$WORK/console.txt
display_library: term
log: $WORK/bochs.log
panic: action=fatal
error: action=ignore
info: action=ignore
clock: sync=none, time0=local
EOF
echo c >"$WORK/debugger.rc"  # Debian's Bochs has its debugger built in: continue at once

# ---- boot it; the term display wants a terminal, which `script` provides -------------------
rm -f "$WORK/console.txt"
echo "avx512_emulated: booting ($(du -m "$WORK/boot.iso" | cut -f1) MB image, ${PARTS[*]}; console: $WORK/console.txt)"
start=$(date +%s)
TERM=xterm timeout "$TIMEOUT" script -qfc "bochs -q -f $WORK/bochsrc -rc $WORK/debugger.rc" /dev/null \
  </dev/null >"$WORK/bochs.out" 2>&1 || true
echo "avx512_emulated: the guest ran $(( $(date +%s) - start )) s"

# ---- judge what the guest printed ------------------------------------------------------------
console="$WORK/console.txt"
[ -f "$console" ] && grep -q '^=== end' "$console" || {
  echo "avx512_emulated: the guest did not finish (see $console and $WORK/bochs.log)"; exit 2; }
sed -n '/^=== devices/,/^=== end/p' "$console"
failed=0
grep -A1 '^=== devices' "$console" | grep -q 'kernels: avx512,' || {
  echo "avx512_emulated FAIL: the guest did not run the AVX-512 kernels"; failed=1; }
if want conformance; then
  if ! /usr/bin/python3 - "$console" "$ROOT/tests/conformance" <<'EOF'
import re, sys
console, conf = sys.argv[1], sys.argv[2]
sys.path.insert(0, conf)
from check_conformance import floor_for, known_failures  # the CTests' own reading of the lists
text = open(console, errors="replace").read().split("=== conformance", 1)[1].split("\n===", 1)[0]
fails = set(re.findall(r"^FAIL (\S+)", text, re.M))
known = known_failures(conf + "/known_failures.txt", "cpu")
floor = floor_for(conf + "/min_passed.txt", "cpu")
m = re.search(r"^(\d+) passed, (\d+) failed, (\d+) skipped", text, re.M)
passed = int(m.group(1)) if m else 0
new = sorted(fails - known)
print("conformance(avx512): %d passed (floor %d), failures not known: %s" % (passed, floor, " ".join(new) or "none"))
sys.exit(0 if m and passed >= floor and not new else 1)
EOF
  then failed=1; fi
fi
if want paddleocr; then
  cases=$(ls "$WORK/paddleocr" | wc -l)
  passes=$(sed -n '/^=== paddleocr/,/^===/p' "$console" | grep -c '^PASS ' || true)
  echo "paddleocr(avx512): $passes of $cases cases within tolerance of ONNX Runtime"
  [ "$passes" = "$cases" ] || failed=1
fi
if want ops; then
  ops="$(sed -n '/^=== ops/,/^===/p' "$console")"
  if ! grep -q '^\[  PASSED  \]' <<<"$ops" || grep -q '^\[  FAILED  \]' <<<"$ops"; then
    echo "ops(avx512): FAIL"; failed=1
  else
    echo "ops(avx512): $(grep '^\[  PASSED  \]' <<<"$ops")"
  fi
fi
exit $failed
