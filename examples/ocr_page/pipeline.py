"""PaddleOCR's page pipeline on any engine (engines.py): detect text regions, cut each out,
turn upside-down lines upright, read them. Each stage keeps PaddleOCR's own pre- and
post-processing settings (PP-OCRv4 det and rec, mobile v2.0 direction classifier), so the
models see what they were trained on."""
import math
import os
import time

import numpy as np
from PIL import Image

import geometry

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(REPO, "third_party", "models", "paddleocr")
DET = os.path.join(MODELS, "ch_PP-OCRv4_det_infer.onnx")
CLS = os.path.join(MODELS, "ch_ppocr_mobile_v2.0_cls_infer.onnx")
REC = os.path.join(MODELS, "ch_PP-OCRv4_rec_infer.onnx")
KEYS = os.path.join(MODELS, "ppocr_keys_v1.txt")

# Detection: the longest side at most 960, both sides multiples of 32 (the net downsamples 32x).
DET_LIMIT_SIDE, DET_MEAN, DET_STD = 960, (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
# DB post-processing: pixel threshold, a region's mean probability, growth, smallest side.
DB_THRESH, DB_BOX_THRESH, DB_UNCLIP_RATIO, DB_MIN_SIZE = 0.3, 0.6, 1.5, 3
CLS_SHAPE, CLS_THRESH, CLS_BATCH = (48, 192), 0.9, 6   # turn a line when '180' is this sure
REC_HEIGHT, REC_MIN_RATIO, REC_BATCH = 48, 320 / 48, 6


class Stopwatch:
    """Milliseconds per stage, split into the engine's model time and the rest (Python)."""

    def __init__(self):
        self.model, self.total = {}, {}

    def add_model(self, stage, ms):
        self.model[stage] = self.model.get(stage, 0.0) + ms

    def timed(self, stage, fn, *args):
        t0 = time.perf_counter()
        out = fn(*args)
        self.total[stage] = self.total.get(stage, 0.0) + (time.perf_counter() - t0) * 1e3
        return out


def normalised(rgb, mean, std):
    """HWC uint8 RGB -> 1xCxHxW float32 in PaddleOCR's channel order (BGR, as OpenCV reads)."""
    bgr = np.asarray(rgb, dtype=np.float32)[:, :, ::-1] / 255.0
    return ((bgr - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)).transpose(2, 0, 1)


def detect(engine, image, watch):
    """Text boxes on the page (corners in page pixels), in reading order."""
    w, h = image.size
    scale = min(1.0, DET_LIMIT_SIDE / max(w, h))
    dw = max(32, int(round(w * scale / 32)) * 32)
    dh = max(32, int(round(h * scale / 32)) * 32)
    x = normalised(image.resize((dw, dh), Image.BILINEAR), DET_MEAN, DET_STD)[None]
    prob, ms = engine.run(DET, np.ascontiguousarray(x))
    watch.add_model("detect", ms)
    prob = prob.reshape(prob.shape[-2:])
    boxes = []
    for runs in geometry.connected_regions(prob > DB_THRESH):
        corners, side_a, side_b = geometry.min_area_rect(geometry.region_outline(runs))
        if min(side_a, side_b) < DB_MIN_SIZE:
            continue
        if region_score(prob, corners) < DB_BOX_THRESH:
            continue
        # The DB net shrinks regions when trained: grow them back by area * ratio / perimeter.
        area, perimeter = side_a * side_b, 2 * (side_a + side_b)
        corners, side_a, side_b = geometry.grow_rect(corners, area * DB_UNCLIP_RATIO / perimeter)
        if min(side_a, side_b) < DB_MIN_SIZE + 2:
            continue
        corners = corners * np.array([w / dw, h / dh])
        corners[:, 0] = np.clip(np.round(corners[:, 0]), 0, w)
        corners[:, 1] = np.clip(np.round(corners[:, 1]), 0, h)
        boxes.append(corners)
    return reading_order(boxes)


def region_score(prob, corners):
    """Mean probability inside the box (PaddleOCR's 'fast' score)."""
    h, w = prob.shape
    x0, y0 = np.clip(np.floor(corners.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(corners.max(axis=0)).astype(int), 0, [w - 1, h - 1])
    mask = geometry.polygon_mask(corners - [x0, y0], (y1 - y0 + 1, x1 - x0 + 1))
    return float(prob[y0:y1 + 1, x0:x1 + 1][mask].mean()) if mask.any() else 0.0


def reading_order(boxes, same_line_px=10):
    """Top to bottom; boxes whose tops are within same_line_px are one line, left to right."""
    boxes = sorted(boxes, key=lambda b: (b[0, 1], b[0, 0]))
    lines, out = [], []
    for b in boxes:
        if lines and abs(b[0, 1] - lines[-1][0][0, 1]) < same_line_px:
            lines[-1].append(b)
        else:
            lines.append([b])
    for line in lines:
        out += sorted(line, key=lambda b: b[0, 0])
    return out


def resized_line(crop, height, width):
    """A crop as 3 x height x width: resized to `height` keeping its aspect (at most `width`
    wide), mapped to [-1, 1], zero (mid-grey) to the right."""
    w = max(1, min(width, int(math.ceil(height * crop.width / crop.height))))
    x = normalised(crop.resize((w, height), Image.BILINEAR), (0.5,) * 3, (0.5,) * 3)
    out = np.zeros((3, height, width), np.float32)
    out[:, :, :w] = x
    return out


def batches(crops, size):
    """Indices of the crops by aspect ratio, narrowest first, in groups of `size`: lines of a
    batch are padded to its widest, so similar widths waste least."""
    order = sorted(range(len(crops)), key=lambda i: crops[i].width / crops[i].height)
    return [order[i:i + size] for i in range(0, len(order), size)]


def classify(engine, crops, watch):
    """For each crop: (turned, confidence); turned crops are replaced by their 180° turn."""
    results = [None] * len(crops)
    ch, cw = CLS_SHAPE
    for group in batches(crops, CLS_BATCH):
        x = np.stack([resized_line(crops[i], ch, cw) for i in group])
        prob, ms = engine.run(CLS, x)
        watch.add_model("classify", ms)
        for i, p in zip(group, prob):
            turned = bool(p[1] > p[0] and p[1] > CLS_THRESH)
            results[i] = (turned, float(max(p)))
            if turned:
                crops[i] = crops[i].transpose(Image.ROTATE_180)
    return results


def recognise(engine, crops, keys, watch):
    """For each crop: (text, mean confidence), batched by width."""
    results = [None] * len(crops)
    for group in batches(crops, REC_BATCH):
        ratio = max([REC_MIN_RATIO] + [crops[i].width / crops[i].height for i in group])
        width = int(REC_HEIGHT * ratio)
        x = np.stack([resized_line(crops[i], REC_HEIGHT, width) for i in group])
        scores, ms = engine.run(REC, x)
        watch.add_model("recognise", ms)
        for i, s in zip(group, scores):
            results[i] = ctc_greedy(s, keys)
    return results


def ctc_greedy(scores, keys):
    """Best class per column; repeats merged, the blank (class 0) dropped."""
    best = scores.argmax(axis=1)
    keep = (best != 0) & np.concatenate([[True], best[1:] != best[:-1]])
    chars = [keys[k] for k in best[keep]]
    conf = scores[np.arange(len(best)), best][keep]
    return "".join(chars), float(conf.mean()) if len(conf) else 0.0


def load_keys():
    with open(KEYS, encoding="utf-8") as f:
        # The recogniser's classes: blank, the dictionary, then the space.
        return [""] + f.read().splitlines() + [" "]


def read_page(engine, image, keys):
    """[{box, text, confidence, turned, direction_confidence}] in reading order, and the
    Stopwatch of this run."""
    watch = Stopwatch()
    boxes = watch.timed("detect", detect, engine, image, watch)
    crops = watch.timed("crop", lambda: [geometry.crop_box(image, b) for b in boxes])
    directions = watch.timed("classify", classify, engine, crops, watch)
    texts = watch.timed("recognise", recognise, engine, crops, keys, watch)
    lines = [{"box": b, "text": t, "confidence": c, "turned": d, "direction_confidence": dc}
             for b, (t, c), (d, dc) in zip(boxes, texts, directions)]
    return lines, watch
