"""Who runs the models: Tessera (the `tessera` Python module) or, as the reference, ONNX
Runtime. Both answer run(model path, x) -> (the model's one output, milliseconds the model
took), so the page pipeline is the same code on each."""
import json
import os
import subprocess
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class TesseraEngine:
    """One tessera.Session per model, kept: a new input shape re-plans once, then reuses."""

    def __init__(self, backend, threads):
        import tessera  # scripts/setup.sh's .pth, or ocr_page.py's --build
        self.tessera = tessera
        self.backend, self.threads = backend, threads
        self.sessions = {}

    def session(self, model):
        if model not in self.sessions:
            s = self.tessera.Session(model, backend=self.backend, threads=self.threads)
            self.sessions[model] = (s, s.inputs[0]["name"], s.outputs[0]["name"])
        return self.sessions[model]

    def run(self, model, x):
        s, x_name, y_name = self.session(model)
        t0 = time.perf_counter()
        y = s.run({x_name: x}, [y_name])[y_name]
        return y, (time.perf_counter() - t0) * 1e3

    def describe(self):
        """Where the nodes of the last plans ran, by backend, with each backend's device."""
        devices = self.tessera.devices()  # backend -> a description, its first line the device
        counts = {}
        for s, _, _ in self.sessions.values():
            for node in s.placement()["nodes"]:
                key = "folded" if node["folded"] else node["backend"]
                counts[key] = counts.get(key, 0) + 1
        ran = ["%s (%s): %d nodes" % (b, devices.get(b, "").strip().splitlines()[0].split(" (")[0],
                                      n) for b, n in sorted(counts.items()) if b != "folded"]
        if counts.get("folded"):
            ran.append("%d folded at planning" % counts["folded"])
        return "tessera %s, %s; %d threads" % (self.tessera.__version__,
                                               ", ".join(ran) or self.backend, self.threads)

    def close(self):
        self.sessions.clear()


class OrtEngine:
    """ONNX Runtime (CPU, onnxruntime-node from third_party/ort) behind tests/models/
    ort_serve.mjs, one process that keeps a session per model. The time is ONNX Runtime's own
    session.run, measured in that process: the pipe does not count against it."""

    DTYPES = {"float32": np.float32, "int64": np.int64, "int32": np.int32, "uint8": np.uint8}

    def __init__(self, threads):
        self.threads = threads
        server = os.path.join(REPO, "tests", "models", "ort_serve.mjs")
        self.proc = subprocess.Popen(["node", server, "--threads", str(threads)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.version = self._call({"command": "version"})[0]["version"]

    def _call(self, header, payload=b""):
        self.proc.stdin.write((json.dumps(header) + "\n").encode())
        self.proc.stdin.write(payload)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("ort_serve.mjs ended (is scripts/setup.sh's ONNX Runtime there?)")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise RuntimeError("ONNX Runtime: %s" % reply.get("error"))
        arrays = []
        for o in reply.get("outputs", []):
            dtype = np.dtype(self.DTYPES[o["dtype"]])
            count = int(np.prod(o["dims"], dtype=np.int64))
            data = self.proc.stdout.read(count * dtype.itemsize)
            arrays.append(np.frombuffer(data, dtype=dtype).reshape(o["dims"]))
        return reply, arrays

    def run(self, model, x):
        x = np.ascontiguousarray(x, dtype=np.float32)
        reply, (y,) = self._call({"command": "run", "model": model,
                                  "input": {"dtype": "float32", "dims": list(x.shape)}},
                                 x.tobytes())
        return y, reply["run_ms"]

    def describe(self):
        return "onnxruntime %s (CPU), %d threads" % (self.version, self.threads)

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
