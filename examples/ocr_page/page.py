"""The default input: a document page rendered with a real font (DejaVu, Debian's
fonts-dejavu-core), whose text is known, so a run can be checked line by line."""
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
WIDTH, HEIGHT = 800, 600

# (text, font file, size in pixels, left edge, upside down): lines of different sizes and
# lengths, letters mixed with digits; one printed upside down.
LINES = [
    ("Tessera reads this page", "DejaVuSans-Bold.ttf", 40, 60, False),
    ("Invoice 2026 total 4815 EUR", "DejaVuSans.ttf", 26, 60, False),
    ("Order 73 ships on Friday", "DejaVuSerif.ttf", 24, 60, False),
    ("Quick brown fox jumps 29 times", "DejaVuSans.ttf", 30, 60, False),
    ("Upside down line 5820", "DejaVuSans.ttf", 28, 300, True),
    ("Room B12 floor 7", "DejaVuSansMono.ttf", 22, 60, False),
    ("Batch 64 kernels run faster", "DejaVuSans.ttf", 20, 420, False),
]
TOP, GAP = 50, 34  # the first line's top; the space between lines


def font_path(name):
    path = os.path.join(FONT_DIR, name)
    if not os.path.exists(path):
        raise SystemExit("ocr_page: font %s is missing: run scripts/setup.sh (fonts-dejavu-core)"
                         % path)
    return path


def render_page(seed=7):
    """The page (PIL RGB image) and its lines: [(text, (x0, y0, x1, y1) ink box, upside down)].
    Dark ink on light paper with a gentle shading and a little noise."""
    paper = Image.new("L", (WIDTH, HEIGHT), 255)
    draw = ImageDraw.Draw(paper)
    truth, y = [], TOP
    for text, face, size, left, upside_down in LINES:
        font = ImageFont.truetype(font_path(face), size)
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
        w, h = x1 - x0, y1 - y0
        line = Image.new("L", (w, h), 255)
        ImageDraw.Draw(line).text((-x0, -y0), text, font=font, fill=30)
        if upside_down:
            line = line.transpose(Image.ROTATE_180)
        paper.paste(line, (left, y))
        truth.append((text, (left, y, left + w, y + h), upside_down))
        y += h + GAP
    ink = np.asarray(paper, dtype=np.float32)
    rng = np.random.RandomState(seed)
    xs, ys = np.meshgrid(np.linspace(0, 1, WIDTH), np.linspace(0, 1, HEIGHT))
    shade = 1.0 - 0.06 * (0.5 + 0.5 * np.sin(3.0 * xs + 2.0 * ys))  # paper, not white
    rgb = np.stack([ink * shade * t for t in (0.98, 0.96, 0.90)], axis=-1)
    rgb += rng.normal(0, 4.0, rgb.shape)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB"), truth
