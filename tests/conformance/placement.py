"""Where a conformance case ran, from the node list of `tessera conformance --json`.

A case proves a backend's kernels only when some node ran on that backend and none ran
elsewhere; nodes folded into constants while planning ran on the host and prove nothing.
Shared by check_conformance.py and the Vulkan and OpenCL conformance scripts."""


def ran_on(case, backend):
    """True when some node of `case` ran on `backend` and every other node was folded."""
    nodes = case.get("nodes", [])
    return any(n["backend"] == backend and not n.get("folded") for n in nodes) and \
        all(n["backend"] == backend or n.get("folded") for n in nodes)


def ran_summary(cases, backend):
    """One line: of the passing cases, how many ran on `backend`, how many did not."""
    passed = [c for c in cases if c["status"] == "PASS"]
    ran = sum(1 for c in passed if ran_on(c, backend))
    return "of the %d passed, %d ran on %s, %d were folded at planning or ran elsewhere" % (
        len(passed), ran, backend, len(passed) - ran)
