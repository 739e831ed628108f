#!/usr/bin/env bash
# Runs a command with the CPU kernels forced to one instruction set (TESSERA_CPU_ISA), after
# checking that this CPU really runs that path: a CPU without it would fall back to another
# one, and the test would then prove nothing, so it is skipped (exit 77) instead.
#
#   tests/cpu/with_isa.sh ISA TESSERA_CLI COMMAND [ARGS...]
set -euo pipefail
isa="$1"; cli="$2"; shift 2
devices="$(TESSERA_CPU_ISA="$isa" "$cli" devices 2>/dev/null || true)"
if [[ "$devices" != *"kernels: $isa,"* ]]; then
  echo "with_isa: this CPU has no $isa path; skipped"
  exit 77
fi
TESSERA_CPU_ISA="$isa" exec "$@"
