"""The tessera Python module against the C++ API (the `tessera` command) and bad input.
Run by CTest python_api: /usr/bin/python3 -m pytest tests/python, with build/python on
PYTHONPATH and TESSERA_CLI naming build/tessera."""
import os
import subprocess
import tempfile
import threading

import numpy as np
import pytest

import tessera

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLS = os.path.join(ROOT, "third_party", "models", "paddleocr", "ch_ppocr_mobile_v2.0_cls_infer.onnx")
NODE = "/usr/share/libonnx-testdata/data/node"
CLI = os.environ.get("TESSERA_CLI", os.path.join(ROOT, "build", "tessera"))


def node_model(case):
    path = os.path.join(NODE, case, "model.onnx")
    if not os.path.exists(path):
        pytest.skip("ONNX test data missing (scripts/setup.sh)")
    return path


def cli_run(model, feeds):
    """The C++ API's outputs for `feeds`, through `tessera run` (CPU, 1 thread)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [CLI, "run", model, "--backend", "cpu", "--threads", "1", "--output-dir", tmp]
        for name, a in feeds.items():
            np.save(os.path.join(tmp, "in_" + name + ".npy"), a)
            cmd += ["--input", "%s=%s" % (name, os.path.join(tmp, "in_" + name + ".npy"))]
        subprocess.run(cmd, check=True, capture_output=True)
        return {f[:-4]: np.load(os.path.join(tmp, f)) for f in os.listdir(tmp)
                if f.endswith(".npy") and not f.startswith("in_")}


def test_version_and_devices():
    assert tessera.__version__.count(".") == 2
    d = tessera.devices()
    assert "cpu" in d and isinstance(d["cpu"], str)


def test_classifier_equals_the_cpp_api_bit_for_bit():
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32)
    s = tessera.Session(CLS, backend="cpu", threads=1)
    got = s.run({"x": x})
    want = cli_run(CLS, {"x": x})
    assert list(got) == ["softmax_0.tmp_0"]
    assert np.array_equal(got["softmax_0.tmp_0"], want["softmax_0.tmp_0"])


def test_model_as_bytes_and_metadata():
    with open(CLS, "rb") as f:
        s = tessera.Session(f.read(), backend=["cpu"])
    assert s.inputs == [{"name": "x", "dtype": "float32", "shape": (None, 3, None, None)}]
    assert s.outputs[0]["name"] == "softmax_0.tmp_0"
    assert s.backends == ["cpu"]
    s.run({"x": np.zeros((1, 3, 48, 192), np.float32)})
    p = s.placement()
    assert p["nodes"] and all(n["backend"] == "cpu" for n in p["nodes"])
    assert p["planned_peak_bytes"] > 0


def random_feeds(session, seed):
    rng = np.random.default_rng(seed)
    feeds = {}
    for i in session.inputs:
        shape = tuple(d if d is not None else 2 for d in i["shape"])
        dt = np.dtype(i["dtype"])
        if dt == np.bool_:
            feeds[i["name"]] = rng.integers(0, 2, shape).astype(np.bool_)
        elif dt.kind in "iu":
            feeds[i["name"]] = rng.integers(0, 3, shape).astype(dt)  # also valid indices
        else:
            feeds[i["name"]] = rng.uniform(-2, 2, shape).astype(dt)
    return feeds


# Inputs and outputs of every dtype the module takes: float32, float16, int32, int64, uint8,
# bool; each run equals the C++ API's bit for bit.
@pytest.mark.parametrize("case", ["test_cast_FLOAT16_to_FLOAT", "test_cast_FLOAT_to_FLOAT16", "test_equal",
                                  "test_where_example", "test_gather_0", "test_add_uint8", "test_greater"])
def test_every_dtype_equals_the_cpp_api(case):
    model = node_model(case)
    s = tessera.Session(model, backend="cpu", threads=1)
    feeds = random_feeds(s, 3)
    got = s.run(feeds)
    want = cli_run(model, feeds)
    for o in s.outputs:
        assert got[o["name"]].dtype == np.dtype(o["dtype"])
        assert np.array_equal(got[o["name"]], want[o["name"]])


def test_a_wrong_dtype_is_refused_with_the_library_message():
    s = tessera.Session(node_model("test_add_uint8"), backend="cpu")
    feeds = {k: v.astype(np.int32) for k, v in random_feeds(s, 4).items()}
    with pytest.raises(tessera.InvalidArgument, match="must be u8 but is i32"):
        s.run(feeds)


def test_non_contiguous_arrays_are_converted():
    s = tessera.Session(node_model("test_add"), backend="cpu")
    shape = tuple(s.inputs[0]["shape"])
    a = np.random.default_rng(2).standard_normal(shape[::-1]).astype(np.float32).T  # Fortran order
    b = np.ones(shape, np.float32)
    y = list(s.run({"x": a, "y": b}).values())[0]
    assert np.array_equal(y, np.ascontiguousarray(a) + b)


def test_bad_input_raises_the_library_message():
    s = tessera.Session(CLS, backend="cpu")
    with pytest.raises(tessera.InvalidArgument, match="dimension 1 must be 3"):
        s.run({"x": np.zeros((1, 4, 48, 192), np.float32)})
    with pytest.raises(tessera.InvalidArgument, match="not supported"):
        s.run({"x": np.zeros((1, 3, 48, 192), np.complex64)})
    with pytest.raises(tessera.Error, match="missing input 'x'"):
        s.run({})
    with pytest.raises(tessera.InvalidArgument, match="no output 'nope'"):
        s.run({"x": np.zeros((1, 3, 48, 192), np.float32)}, outputs=["nope"])
    with pytest.raises(tessera.InvalidModel):
        tessera.Session(b"not a model")
    with pytest.raises(tessera.InvalidModel):
        tessera.Session("/nonexistent/model.onnx")
    with pytest.raises(tessera.InvalidArgument, match="backend 'tpu'"):
        tessera.Session(CLS, backend="tpu")
    with pytest.raises(tessera.InvalidArgument, match="precision"):
        tessera.Session(CLS, precision="int4")


def test_out_of_range_index_is_an_error_not_a_crash():
    model = node_model("test_gather_0")
    s = tessera.Session(model, backend="cpu")
    data = np.zeros(tuple(d or 2 for d in s.inputs[0]["shape"]), np.float32)
    idx_shape = tuple(d or 2 for d in s.inputs[1]["shape"])
    with pytest.raises(tessera.Error, match="out of range|index"):
        s.run({s.inputs[0]["name"]: data, s.inputs[1]["name"]: np.full(idx_shape, 1000, np.int64)})


def test_session_reuse_with_new_shapes():
    s = tessera.Session(CLS, backend="cpu", threads=1)
    for w in (192, 96, 320, 192):
        x = np.random.default_rng(w).uniform(-1, 1, (2, 3, 48, w)).astype(np.float32)
        y = s.run({"x": x})["softmax_0.tmp_0"]
        assert y.shape == (2, 2)
        assert np.array_equal(y, cli_run(CLS, {"x": x})["softmax_0.tmp_0"])


def test_repeated_runs_of_one_shape_each_keep_their_own_result():
    # The Session refills the last run's output memory (Session::run): every array returned
    # must still hold its own run's values after later runs, here and from several threads
    # on one Session at once.
    s = tessera.Session(CLS, backend="cpu", threads=1)
    xs = [np.random.default_rng(40 + i).uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32) for i in range(4)]
    want = [cli_run(CLS, {"x": x})["softmax_0.tmp_0"] for x in xs]
    got = [s.run({"x": x})["softmax_0.tmp_0"] for x in xs]
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    results, errors = [], []

    def work(i):
        try:
            for _ in range(5):
                results.append((i, s.run({"x": xs[i]})["softmax_0.tmp_0"]))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 20 and all(np.array_equal(r, want[i]) for i, r in results)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_threads_run_sessions_concurrently_with_the_same_results():
    x = np.random.default_rng(5).uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32)
    want = tessera.Session(CLS, backend="cpu", threads=1).run({"x": x})["softmax_0.tmp_0"]
    results, errors = [], []

    def work():
        try:
            s = tessera.Session(CLS, backend="cpu", threads=1)
            for _ in range(5):
                results.append(s.run({"x": x})["softmax_0.tmp_0"])
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 15 and all(np.array_equal(r, want) for r in results)


def test_profile_lists_the_steps():
    s = tessera.Session(CLS, backend="cpu")
    steps = s.profile({"x": np.zeros((1, 3, 48, 192), np.float32)}, runs=2)
    assert steps and all(st["ms"] >= 0 for st in steps)
    assert any(st["op"] == "Conv" for st in steps)
    assert all(st["dispatches"] is None for st in steps)  # CPU steps issue no GPU dispatches


def test_the_gil_is_released_while_a_model_runs():
    # While another thread runs the detector, this thread keeps executing Python: the longest
    # pause between its loop iterations stays far below the length of one run. (Three tries,
    # for a loaded machine; with the GIL held every try fails.)
    import time
    det = os.path.join(ROOT, "third_party", "models", "paddleocr", "ch_PP-OCRv4_det_infer.onnx")
    s = tessera.Session(det, backend="cpu", threads=1)
    x = np.zeros((1, 3, 640, 640), np.float32)
    s.run({"x": x})  # plan first
    start = time.perf_counter()
    s.run({"x": x})
    one_run = time.perf_counter() - start
    pauses = []
    for _ in range(3):
        done = threading.Event()
        t = threading.Thread(target=lambda: (s.run({"x": x}), done.set()))
        longest, last = 0.0, time.perf_counter()
        t.start()
        while not done.is_set():
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
        t.join()
        pauses.append(longest)
        if longest < one_run / 3:
            return
    pytest.fail("Python stopped for %s ms during %.1f ms runs" % (["%.1f" % (p * 1e3) for p in pauses], one_run * 1e3))
