#!/bin/sh
# Runs the real `tessera` ($TESSERA_REAL) with --precision fp16 added to `run`, so model
# checks that know no precision option can run a GPU backend's fp16 mode.
cmd="$1"
shift
if [ "$cmd" = "run" ]; then exec "$TESSERA_REAL" run --precision fp16 "$@"; fi
exec "$TESSERA_REAL" "$cmd" "$@"
