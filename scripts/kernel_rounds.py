#!/usr/bin/env python3
"""The kernel benchmarks' rounds in one table (scripts/bench_kernels.sh --rounds=N).

Each argument is one round's Google Benchmark JSON (--benchmark_out). Per case it takes the
lowest median op time over the rounds, as the PaddleOCR comparison takes each engine's lowest
median: a burst of load from another tenant costs one round, not the result. The
denominators are the strictest any round measured: %peak against the highest peak (the clock,
raised where the FMA loop ran faster), the bound at the highest main-memory bandwidth.
Where a case has a memory bound, the table also shows how long its FLOPs take at that peak
and the op against the larger of the two (the roofline): a conv with few input channels can
be bound by its arithmetic on one machine and by memory on another.
"""
import json
import sys


def medians(path):
    rows = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            rows[b["run_name"].replace("/manual_time", "")] = b
    return rows


def main(paths):
    rounds = [medians(p) for p in paths]
    fma = ["%.1f%%" % r[k]["%peak"] for r in rounds for k in r if k.startswith("MachinePeak/fma_chains")]
    peaks = [b["GFLOP/s"] * 100 / b["%peak"] for r in rounds for b in r.values()
             if "op_ms" in b and b.get("%peak", 0) > 0]
    bandwidth = [b["copy_GB/s"] for r in rounds for k, b in r.items() if k.startswith("MemoryBandwidth/main_memory")]
    peak = max(peaks) if peaks else 0
    print("\n%d rounds; fma_chains %s; peak %.1f GFLOP/s and main-memory copy %.1f GB/s (the highest of the rounds)\n"
          % (len(rounds), ", ".join(fma) or "not run", peak, max(bandwidth) if bandwidth else 0))
    print("| case | op ms (lowest median) | op %peak | bound ms | op x bound | FLOPs at peak ms | op x roofline |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    names = [k for k in rounds[0] if "op_ms" in rounds[0][k]]
    for name in names:
        runs = [r[name] for r in rounds if name in r]
        best = min(b["op_ms"] for b in runs)
        # The case's FLOPs, from any round: op GFLOP/s = op_%peak x that round's peak.
        b0 = runs[0]
        flops = b0["op_%peak"] / 100 * (b0["GFLOP/s"] * 100 / b0["%peak"]) * b0["op_ms"] * 1e6
        share = "%.1f" % (100 * flops / (best * 1e6) / peak) if peak else "-"
        bounds = [b["bound_ms"] for b in runs if "bound_ms" in b]
        bound = min(bounds) if bounds else None
        arithmetic = flops / (peak * 1e6) if peak else 0  # ms
        roofline = max(bound, arithmetic) if bound else None
        print("| %s | %.4f | %s | %s | %s | %s | %s |" % (
            name, best, share, "%.4f" % bound if bound else "", "%.2f" % (best / bound) if bound else "",
            "%.4f" % arithmetic if bound else "", "%.2f" % (best / roofline) if roofline else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
