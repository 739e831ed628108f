#!/usr/bin/python3
"""Reads a document page with PaddleOCR's models on Tessera's Python module.

Detection (PP-OCRv4 det) finds the text regions, each is cut out and rectified, the direction
classifier turns upside-down lines upright, and the recogniser (PP-OCRv4 rec) reads them in
batches of similar widths. Prints each line (box, text, confidence), the time of each stage,
and writes out/ocr.png: the page with its boxes, beside the text read.

Usage: ocr_page.py [--image PATH] [--backend auto|cpu|vulkan|opencl|onnxruntime] [--threads 2]
                   [--runs 1] [--out out] [--check]
Without --image it reads a page it renders (page.py) and knows the text of. --backend
onnxruntime runs the same pipeline on ONNX Runtime (the reference). --runs N repeats the page
and reports the median time of each stage (the first run, which plans, is not counted when
N > 1). --check exits 1 unless every line of the rendered page is found once and read exactly
(character error rate 0), upside-down line included (the test suite's use).
"""
import argparse
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import page      # noqa: E402  (modules of this example)
import pipeline  # noqa: E402


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def score_against(truth, lines):
    """Matches each rendered line to the boxes whose centre falls in it; returns (character
    error rate, a list of problems)."""
    problems, errors, chars = [], 0, 0
    used = set()
    for text, (x0, y0, x1, y1), upside_down in truth:
        margin = 0.5 * (y1 - y0)
        found = [i for i, ln in enumerate(lines)
                 if x0 - margin <= ln["box"][:, 0].mean() <= x1 + margin
                 and y0 - margin <= ln["box"][:, 1].mean() <= y1 + margin]
        used.update(found)
        read = " ".join(lines[i]["text"] for i in found)
        chars += len(text)
        errors += edit_distance(text, read)
        if len(found) != 1:
            problems.append("'%s' found as %d boxes" % (text, len(found)))
        if read != text:
            problems.append("'%s' read as '%s'" % (text, read))
        elif upside_down and not all(lines[i]["turned"] for i in found):
            problems.append("'%s' is upside down but was not turned" % text)
    for i, ln in enumerate(lines):
        if i not in used:
            problems.append("a box where no text was printed, read as '%s'" % ln["text"])
    return errors / max(chars, 1), problems


def draw_result(image, lines, path):
    """The page with numbered boxes on the left; the text read at each box's place on the right."""
    w, h = image.size
    out = Image.new("RGB", (2 * w, h), "white")
    out.paste(image, (0, 0))
    draw = ImageDraw.Draw(out)
    label = ImageFont.truetype(page.font_path("DejaVuSans.ttf"), 12)
    for n, ln in enumerate(lines, 1):
        box = [tuple(p) for p in ln["box"]]
        draw.polygon(box, outline=(220, 40, 40))
        draw.text((box[0][0], max(0, box[0][1] - 13)), str(n), fill=(220, 40, 40), font=label)
        right = [(x + w, y) for x, y in box]
        draw.polygon(right, outline=(40, 90, 220))
        size = max(10, int(0.7 * (ln["box"][3, 1] - ln["box"][0, 1])))
        font = ImageFont.truetype(page.font_path("DejaVuSans.ttf"), size)
        draw.text((right[0][0] + 2, right[0][1] + 1), ln["text"], fill=(0, 0, 0), font=font)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    out.save(path)


def make_engine(args):
    if args.backend == "onnxruntime":
        from engines import OrtEngine
        return OrtEngine(args.threads)
    build_python = os.path.join(args.build, "python")
    if os.path.isdir(build_python):  # this build's module first, whatever a .pth names
        sys.path.insert(0, build_python)
    from engines import TesseraEngine
    return TesseraEngine(args.backend, args.threads)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", help="a page to read (PNG, JPEG, ...); default: a rendered page")
    ap.add_argument("--backend", default="auto",
                    help="auto, cpu, vulkan, opencl, a list like vulkan,cpu, or onnxruntime")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1, help="repeat the page; report medians")
    ap.add_argument("--out", default=os.path.join(pipeline.REPO, "out"), help="where ocr.png goes")
    ap.add_argument("--build", default=os.environ.get("TESSERA_BUILD_DIR",
                                                      os.path.join(pipeline.REPO, "build")))
    ap.add_argument("--check", action="store_true", help="exit 1 unless the rendered page is read exactly")
    args = ap.parse_args()
    if args.check and args.image:
        ap.error("--check needs the rendered page (it knows its text): drop --image")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    for f in (pipeline.DET, pipeline.CLS, pipeline.REC, pipeline.KEYS):
        if not os.path.exists(f):
            sys.exit("ocr_page: %s is missing: run scripts/setup.sh" % f)
    if args.image:
        try:
            image, truth = Image.open(args.image).convert("RGB"), None
        except OSError as e:
            sys.exit("ocr_page: cannot read %s: %s" % (args.image, e))
        print("page: %s, %dx%d" % (args.image, image.width, image.height))
    else:
        image, truth = page.render_page()
        print("page: rendered %dx%d with %d lines of known text (--image reads your own)" %
              (image.width, image.height, len(truth)))

    keys = pipeline.load_keys()
    try:
        engine = make_engine(args)
    except ImportError as e:
        sys.exit("ocr_page: %s: build the module (scripts/setup.sh) or name the build with --build" % e)
    try:
        runs = []
        for _ in range(args.runs + (1 if args.runs > 1 else 0)):
            lines, watch = pipeline.read_page(engine, image, keys)
            runs.append(watch)
        print("engine: %s" % engine.describe())
    except Exception as e:  # tessera.Error, or ONNX Runtime's
        print("ocr_page: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 77 if type(e).__name__ == "BackendUnavailable" else 1  # 77: the tests' skip
    finally:
        engine.close()
    timed = runs[1:] if len(runs) > 1 else runs

    for n, ln in enumerate(lines, 1):
        (x0, y0), (x1, y1) = ln["box"].min(axis=0), ln["box"].max(axis=0)
        print("%2d [%4d,%4d %4d,%4d] %-34s %.3f%s" %
              (n, x0, y0, x1, y1, "'%s'" % ln["text"], ln["confidence"],
               "  (was upside down, turned: %.3f)" % ln["direction_confidence"] if ln["turned"] else ""))
    parts = []
    for stage in ("detect", "crop", "classify", "recognise"):
        total = np.median([w.total.get(stage, 0.0) for w in timed])
        model = np.median([w.model.get(stage, 0.0) for w in timed])
        parts.append("%s %.1f ms" % (stage, total) + (" (model %.1f)" % model if stage != "crop" else ""))
    page_ms = np.median([sum(w.total.values()) for w in timed])
    print("time%s: %s; page %.1f ms" %
          (" (median of %d runs after one more)" % len(timed) if len(runs) > 1 else "",
           ", ".join(parts), page_ms))
    png = os.path.join(args.out, "ocr.png")
    draw_result(image, lines, png)
    print("wrote %s" % png)

    if truth is not None:
        cer, problems = score_against(truth, lines)
        print("character error rate against the rendered text: %.4f%s" %
              (cer, "" if not problems else " (" + "; ".join(problems) + ")"))
        if args.check and (problems or cer > 0):
            print("FAIL")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
