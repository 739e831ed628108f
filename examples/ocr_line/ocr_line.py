#!/usr/bin/python3
"""Reads a line of text with PaddleOCR's models on Tessera, through the `tessera` command.

Renders TEXT (capital letters, digits, spaces) into a 48x320 image of a printed line, then
  1. the direction classifier says whether the line is upright or upside down (it is asked
     about the line and about the line turned 180 degrees),
  2. the recogniser reads it (greedy CTC decoding with the model's dictionary),
and prints the answers with each model's median latency (`tessera bench`).

Usage: ocr_line.py [--tessera build/tessera] [--backend auto] [--threads 2] [--text "HELLO"]
                   [--check] [--no-bench]
--check exits 1 unless both directions and the text come out right (the test suite's use).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(REPO, "third_party", "models", "paddleocr")
CLS = os.path.join(MODELS, "ch_ppocr_mobile_v2.0_cls_infer.onnx")
REC = os.path.join(MODELS, "ch_PP-OCRv4_rec_infer.onnx")
KEYS = os.path.join(MODELS, "ppocr_keys_v1.txt")

# A 5x7 pixel font: enough to print a line without an imaging library or font files.
GLYPHS = {
    "A": [" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
    "B": ["#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "],
    "C": [" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "],
    "D": ["#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "],
    "E": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"],
    "F": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "],
    "G": [" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"],
    "H": ["#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
    "I": [" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    "J": ["  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "],
    "K": ["#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"],
    "L": ["#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"],
    "M": ["#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"],
    "N": ["#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"],
    "O": [" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
    "P": ["#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "],
    "Q": [" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"],
    "R": ["#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"],
    "S": [" ### ", "#   #", "#    ", " ### ", "    #", "#   #", " ### "],
    "T": ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "],
    "U": ["#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
    "V": ["#   #", "#   #", "#   #", " # # ", " # # ", "  #  ", "  #  "],
    "W": ["#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "],
    "X": ["#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"],
    "Y": ["#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "],
    "Z": ["#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"],
    "0": [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    "1": ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    "2": [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    "3": ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    "4": ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    "5": ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    "6": ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    "7": ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    "8": [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    "9": [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
    " ": ["     "] * 7,
}
HEIGHT, WIDTH, SCALE = 48, 320, 4  # the recogniser's input: 48 high; 4x glyphs are 20x28


def render_line(text):
    """A printed line: dark glyphs on slightly shaded paper with a little noise, RGB [0, 1]."""
    rng = np.random.RandomState(7)
    x = np.linspace(0, 1, WIDTH)
    paper = 0.9 + 0.04 * np.sin(2.5 * x + 0.5)[None, :] * np.ones((HEIGHT, 1))
    img = paper.copy()
    left, top = 8, (HEIGHT - 7 * SCALE) // 2
    for ch in text:
        for r, row in enumerate(GLYPHS[ch]):
            for c, p in enumerate(row):
                if p == "#":
                    img[top + r * SCALE:top + (r + 1) * SCALE,
                        left + c * SCALE:left + (c + 1) * SCALE] = 0.12
        left += 6 * SCALE
    img = np.clip(img + rng.normal(0, 0.015, img.shape), 0, 1)
    return np.repeat(img[None], 3, axis=0)


def to_input(rgb, width):
    """PaddleOCR's cls/rec preprocessing: resize to 48 x width, map [0, 1] to [-1, 1]."""
    if rgb.shape[2] != width:  # linear resampling along the width
        src = np.linspace(0, rgb.shape[2] - 1, width)
        rgb = np.stack([np.stack([np.interp(src, np.arange(rgb.shape[2]), row) for row in ch])
                        for ch in rgb])
    return ((rgb - 0.5) / 0.5)[None].astype(np.float32)


def tessera(args, *command):
    p = subprocess.run([args.tessera] + list(command), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("ocr_line: `tessera %s` failed:\n%s%s" % (" ".join(command), p.stdout, p.stderr))
    return p.stdout


def run_model(args, model, x, work, tag):
    x_path = os.path.join(work, tag + ".npy")
    out_dir = os.path.join(work, tag)
    np.save(x_path, x)
    tessera(args, "run", model, "--backend", args.backend, "--threads", str(args.threads),
            "--input", "x=" + x_path, "--output-dir", out_dir)
    (out,) = os.listdir(out_dir)  # both models have one output
    return np.load(os.path.join(out_dir, out))


def bench(args, model, shape):
    out = tessera(args, "bench", model, "--backend", args.backend, "--threads", str(args.threads),
                  "--shape", "x=" + shape, "--runs", "20", "--warmup", "3", "--json")
    return json.loads(out.strip().splitlines()[-1])


def ctc_greedy(scores, keys):
    """Best class per column; drop repeats and the blank (class 0)."""
    best = scores.argmax(axis=1)
    chars, confidences, previous = [], [], 0
    for column, k in enumerate(best):
        if k != 0 and k != previous:
            chars.append(keys[k])
            confidences.append(scores[column, k])
        previous = k
    return "".join(chars), float(np.mean(confidences)) if confidences else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tessera", default=os.path.join(REPO, "build", "tessera"))
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--text", default="HELLO TESSERA")
    ap.add_argument("--check", action="store_true", help="exit 1 on a wrong answer")
    ap.add_argument("--no-bench", action="store_true", help="skip the latency measurement")
    args = ap.parse_args()
    text = args.text.upper()
    if any(ch not in GLYPHS for ch in text) or len(text) > (WIDTH - 8) // (6 * SCALE):
        sys.exit("ocr_line: --text takes up to 13 letters, digits and spaces")
    for f in (args.tessera, CLS, REC, KEYS):
        if not os.path.exists(f):
            sys.exit("ocr_line: %s is missing: run scripts/setup.sh" % f)
    with open(KEYS, encoding="utf-8") as f:
        # The recogniser's classes: blank, the dictionary, then the space.
        keys = [""] + f.read().splitlines() + [" "]

    line = render_line(text)
    wrong = []
    with tempfile.TemporaryDirectory(prefix="tessera-ocr-") as work:
        print("line: '%s' rendered as a 3x%dx%d image" % (text, HEIGHT, WIDTH))
        for tag, img, upright in (("upright", line, True),
                                  ("turned 180", line[:, ::-1, ::-1], False)):
            p = run_model(args, CLS, to_input(img, 192), work, "cls")[0]
            print("direction classifier, line %-10s: 0 deg %.4f, 180 deg %.4f -> %s" %
                  (tag, p[0], p[1], "upright" if p[0] >= p[1] else "upside down"))
            if (p[0] >= p[1]) != upright:
                wrong.append("direction of the line %s" % tag)
        scores = run_model(args, REC, to_input(line, WIDTH), work, "rec")[0]
        read, confidence = ctc_greedy(scores, keys)
        print("recogniser: '%s' (mean confidence %.3f) %s" %
              (read, confidence, "matches" if read == text else "differs from '%s'" % text))
        if read != text:
            wrong.append("text")
    if args.check and wrong:
        print("FAIL: wrong %s" % ", ".join(wrong))
        return 1
    if args.no_bench:
        return 0

    for name, model, shape in (("classifier", CLS, "1x3x48x192"), ("recogniser", REC, "1x3x48x320")):
        b = bench(args, model, shape)
        print("latency %-10s x=%s: median %.3f ms (min %.3f, max %.3f) on %s (%s), %d threads" %
              (name, shape, b["median_ms"], b["min_ms"], b["max_ms"], b["backend"], b["device"],
               args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
