"""Boxes of text: connected regions of a bitmap, their smallest rotated rectangles, crops.

Numpy only (no OpenCV): the page pipeline needs four things from geometry, each small.
A box is a (4, 2) float array of corners (x, y) in the order top-left, top-right,
bottom-right, bottom-left.
"""
import numpy as np
from PIL import Image, ImageDraw


def connected_regions(bitmap):
    """The 8-connected regions of a 2-D bool array, each as an (N, 3) int array of runs
    (row, first column, last column + 1). Labels runs rather than pixels: a page has a few
    thousand runs, so a Python union-find over them is fast."""
    padded = np.pad(bitmap.astype(np.int8), ((0, 0), (1, 1)))
    edges = np.diff(padded, axis=1)
    starts = np.argwhere(edges == 1)   # row-major, so starts and ends pair up in order
    ends = np.argwhere(edges == -1)
    runs = np.column_stack([starts[:, 0], starts[:, 1], ends[:, 1]])
    parent = list(range(len(runs)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    row_begin = np.searchsorted(runs[:, 0], np.arange(bitmap.shape[0] + 1))
    for r in range(1, bitmap.shape[0]):
        j, above_end = row_begin[r - 1], row_begin[r]
        for i in range(row_begin[r], row_begin[r + 1]):
            # Runs touch (8-connected) when they overlap after widening by one column.
            while j < above_end and runs[j, 2] < runs[i, 1]:
                j += 1
            k = j
            while k < above_end and runs[k, 1] <= runs[i, 2]:
                ri, rk = root(i), root(k)
                if ri != rk:
                    parent[ri] = rk
                k += 1
    groups = {}
    for i in range(len(runs)):
        groups.setdefault(root(i), []).append(i)
    return [runs[idx] for idx in groups.values()]


def region_outline(runs):
    """Pixel centres of each run's two ends: enough points for the region's convex hull."""
    rows = runs[:, 0].astype(np.float64)
    return np.concatenate([np.column_stack([runs[:, 1], rows]),
                           np.column_stack([runs[:, 2] - 1, rows])]).astype(np.float64)


def convex_hull(points):
    """Andrew's monotone chain; the hull's corners counter-clockwise (y down: clockwise)."""
    pts = np.unique(points, axis=0)
    if len(pts) < 3:
        return pts

    def half(seq):
        out = []
        for p in seq:
            while len(out) >= 2:
                (ax, ay), (bx, by) = out[-2], out[-1]
                if (bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax) > 0:
                    break
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def order_corners(corners):
    """Top-left, top-right, bottom-right, bottom-left: the two leftmost corners are the left
    side (the upper one first), the two rightmost the right side."""
    by_x = corners[np.argsort(corners[:, 0], kind="stable")]
    left, right = by_x[:2], by_x[2:]
    tl, bl = left[np.argsort(left[:, 1], kind="stable")]
    tr, br = right[np.argsort(right[:, 1], kind="stable")]
    return np.array([tl, tr, br, bl])


def min_area_rect(points):
    """The smallest rectangle around the points: one of its sides lies on a hull edge, so try
    each edge's direction. Returns (corners, width along the edge, height across)."""
    hull = convex_hull(points)
    if len(hull) < 3:  # a point or a segment: an axis-aligned box
        lo, hi = points.min(axis=0), points.max(axis=0)
        corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        return corners, hi[0] - lo[0], hi[1] - lo[1]
    edges = np.roll(hull, -1, axis=0) - hull
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 0
    u = edges[keep] / lengths[keep, None]            # each edge's direction
    v = np.column_stack([-u[:, 1], u[:, 0]])         # and its normal
    pu, pv = hull @ u.T, hull @ v.T                  # (hull points, directions)
    area = (pu.max(0) - pu.min(0)) * (pv.max(0) - pv.min(0))
    b = int(np.argmin(area))
    u0, v0 = u[b], v[b]
    a0, a1, b0, b1 = pu[:, b].min(), pu[:, b].max(), pv[:, b].min(), pv[:, b].max()
    corners = np.array([a * u0 + c * v0 for a, c in ((a0, b0), (a1, b0), (a1, b1), (a0, b1))])
    return order_corners(corners), a1 - a0, b1 - b0


def grow_rect(corners, distance):
    """The rectangle with each side pushed out by `distance` (the rounded offset polygon's
    smallest rectangle is exactly this)."""
    centre = corners.mean(axis=0)
    u = corners[1] - corners[0]
    v = corners[3] - corners[0]
    w, h = np.hypot(*u), np.hypot(*v)
    u = u / w if w > 0 else np.array([1.0, 0.0])
    v = v / h if h > 0 else np.array([0.0, 1.0])
    hw, hh = w / 2 + distance, h / 2 + distance
    grown = np.array([centre - hw * u - hh * v, centre + hw * u - hh * v,
                      centre + hw * u + hh * v, centre - hw * u + hh * v])
    return order_corners(grown), 2 * hw, 2 * hh


def polygon_mask(corners, shape):
    """A bool mask of `shape` (h, w), true inside the polygon."""
    mask = Image.new("L", (shape[1], shape[0]), 0)
    ImageDraw.Draw(mask).polygon([tuple(p) for p in corners], fill=1)
    return np.asarray(mask, dtype=bool)


def crop_box(image, corners):
    """The box cut out of a PIL image and turned to an upright rectangle (a perspective warp
    of its quadrilateral); a box much taller than wide is taken as vertical text and turned
    90 degrees."""
    tl, tr, br, bl = corners
    w = int(max(np.hypot(*(tr - tl)), np.hypot(*(br - bl))))
    h = int(max(np.hypot(*(bl - tl)), np.hypot(*(br - tr))))
    w, h = max(w, 1), max(h, 1)
    quad = tuple(float(c) for p in (tl, bl, br, tr) for c in p)
    crop = image.transform((w, h), Image.QUAD, quad, resample=Image.BICUBIC)
    if h / w >= 1.5:
        crop = crop.transpose(Image.ROTATE_90)
    return crop
