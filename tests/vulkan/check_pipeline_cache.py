#!/usr/bin/python3
"""Runs one model on Vulkan several times with a fresh TESSERA_CACHE_DIR: the first start must
write a pipeline cache file there and the second must load it. Then the file is corrupted in
each way a disk or an older build can (truncated, a bit flipped in the data or in the driver's
header, emptied, the older format without Tessera's header): every start after a corruption
must succeed with the same outputs, say that it discarded the file, and leave a good file the
next start loads silently. Prints the cold and warm start times. Exit 77 (skip) without a
Vulkan device."""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def framed(path, data):
    """A cache file as Tessera writes it (core/src/CacheFile.cpp): intact, whatever the data."""
    key = ("/" + os.path.basename(path)).encode()
    return b"TESSERA-CACHE-2\n%016x %d %016x\n" % (fnv1a64(key), len(data), fnv1a64(data)) + data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--shape", required=True, help="NAME=DIMS of the model's one input, e.g. x=1x3x48x192")
    a = ap.parse_args()
    env = dict(os.environ, XDG_RUNTIME_DIR="/tmp")
    devices = subprocess.run([a.tessera, "devices"], capture_output=True, text=True, env=env).stdout
    if "[0]" not in devices.split("vulkan:", 1)[-1]:
        print("SKIP: no Vulkan device")
        return 77
    name, dims = a.shape.split("=")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        env["TESSERA_CACHE_DIR"] = os.path.join(tmp, "cache")
        x = np.random.default_rng(1).uniform(-1, 1, [int(d) for d in dims.split("x")]).astype(np.float32)
        np.save(os.path.join(tmp, "x.npy"), x)

        def start(label):
            """One process: returns (seconds, stderr, outputs by name)."""
            out_dir = os.path.join(tmp, "out")
            for f in glob.glob(os.path.join(out_dir, "*.npy")):
                os.remove(f)
            t0 = time.monotonic()
            r = subprocess.run([a.tessera, "run", a.model, "--backend", "vulkan", "--input",
                                "%s=%s" % (name, os.path.join(tmp, "x.npy")), "--output-dir", out_dir],
                               capture_output=True, text=True, env=env)
            seconds = time.monotonic() - t0
            if r.returncode != 0:
                failures.append("%s: tessera run exited %d:\n%s" % (label, r.returncode, r.stdout + r.stderr))
                return seconds, r.stderr, {}
            outs = {os.path.basename(f): np.load(f) for f in glob.glob(os.path.join(out_dir, "*.npy"))}
            return seconds, r.stderr, outs

        def cache_file():
            files = glob.glob(os.path.join(tmp, "cache", "vulkan", "pipelines-*.pipelinecache"))
            return files[0] if len(files) == 1 else None

        cold, _, reference = start("cold start")
        path = cache_file()
        if not path:
            print("FAIL: no pipeline cache written under " + tmp)
            return 1
        warm, err, outs = start("warm start")
        if "discarded" in err:
            failures.append("warm start discarded a good cache file: " + err)
        good = open(path, "rb").read()
        body = good.index(b"\n", good.index(b"\n") + 1) + 1  # after Tessera's two header lines
        corruptions = {
            "truncated": good[:len(good) // 2],
            "a bit flipped in the data": good[:-5] + bytes([good[-5] ^ 0x10]) + good[-4:],
            "a bit flipped in the driver's header": good[:body + 8] + bytes([good[body + 8] ^ 1]) + good[body + 9:],
            "emptied": b"",
            "the older format (no Tessera header)": good[body:],
            # Intact framing, but the driver's header names another vendor: a foreign file.
            "another device's pipeline cache": framed(path, good[body:body + 8] + b"\xee\xee\xee\xee" +
                                                      good[body + 12:]),
        }
        for what, data in corruptions.items():
            with open(path, "wb") as f:
                f.write(data)
            _, err, outs = start(what)
            if "discarded" not in err:
                failures.append("%s: no note that the cache file was discarded (stderr: %r)" % (what, err))
            for k, v in reference.items():
                if k not in outs or not np.array_equal(outs[k], v):
                    failures.append("%s: output %s differs from the first start's" % (what, k))
            _, err, _ = start(what + ", next start")
            if "discarded" in err or cache_file() is None:
                failures.append("%s: the rebuilt cache file is not good: %r" % (what, err))
            print("%s: discarded, rebuilt, same outputs" % what)
        # An unwritable cache directory (a file stands where it should be) only turns caching off.
        blocker = os.path.join(tmp, "not-a-directory")
        open(blocker, "w").close()
        env["TESSERA_CACHE_DIR"] = os.path.join(blocker, "cache")
        _, err, outs = start("unwritable cache directory")
        for k, v in reference.items():
            if k not in outs or not np.array_equal(outs[k], v):
                failures.append("unwritable cache directory: output %s differs from the first start's" % k)
        print("unwritable cache directory: ran, same outputs, nothing cached")
        print("cold start %.3f s, warm start (pipeline cache %s, %d bytes) %.3f s" %
              (cold, os.path.basename(path), len(good), warm))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
