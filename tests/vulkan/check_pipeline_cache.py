#!/usr/bin/python3
"""Starts `tessera bench` twice on one model with a fresh TESSERA_CACHE_DIR: the first start
must write a Vulkan pipeline cache file there, the second must find it. Prints both
session-creation-to-first-result times (the second start skips pipeline compilation).
Exit 77 (skip) without a Vulkan device."""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--shape", action="append", default=[], help="NAME=DIMS for tessera bench")
    a = ap.parse_args()
    env = dict(os.environ, XDG_RUNTIME_DIR="/tmp")
    devices = subprocess.run([a.tessera, "devices"], capture_output=True, text=True, env=env).stdout
    if "[0]" not in devices.split("vulkan:", 1)[-1]:
        print("SKIP: no Vulkan device")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        env["TESSERA_CACHE_DIR"] = tmp
        times = []
        for attempt in range(2):
            t0 = time.monotonic()
            r = subprocess.run([a.tessera, "bench", a.model, "--backend", "vulkan", "--runs", "1", "--warmup", "0",
                                "--json"] + ["--shape=" + x for x in a.shape], capture_output=True, text=True, env=env)
            times.append(time.monotonic() - t0)
            if r.returncode != 0:
                print("FAIL: tessera bench exited %d:\n%s" % (r.returncode, r.stdout + r.stderr))
                return 1
            files = glob.glob(os.path.join(tmp, "vulkan", "pipelines-*.pipelinecache"))
            if not files:
                print("FAIL: no pipeline cache written in " + tmp)
                return 1
        print("cold start %.3f s, warm start (pipeline cache %s, %d bytes) %.3f s" %
              (times[0], os.path.basename(files[0]), os.path.getsize(files[0]), times[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
