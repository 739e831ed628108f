"""The main job's pieces without the models (examples/ocr_page): region labelling, rotated
rectangles, reading order, CTC decoding and the page check. The models themselves are tested
end to end by the ocr_page_<backend> CTests."""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "ocr_page"))
import geometry  # noqa: E402
import ocr_page  # noqa: E402
import pipeline  # noqa: E402


def test_regions_are_8_connected_and_join_across_rows():
    bitmap = np.zeros((8, 12), bool)
    bitmap[1, 1] = bitmap[2, 2] = True          # diagonal neighbours: one region
    bitmap[1:6, 6] = bitmap[1:6, 9] = True      # a U: two arms joined by the bottom row
    bitmap[5, 6:10] = True
    bitmap[7, 0:3] = True                       # apart from everything
    regions = geometry.connected_regions(bitmap)
    sizes = sorted(int((r[:, 2] - r[:, 1]).sum()) for r in regions)
    assert sizes == [2, 3, 12]


def test_no_regions_in_an_empty_bitmap():
    assert geometry.connected_regions(np.zeros((4, 5), bool)) == []


def test_min_area_rect_of_a_turned_rectangle():
    angle = math.radians(30)
    u, v = np.array([math.cos(angle), math.sin(angle)]), np.array([-math.sin(angle), math.cos(angle)])
    a, b = np.meshgrid(np.linspace(0, 40, 41), np.linspace(0, 10, 11))
    points = (a.reshape(-1, 1) * u + b.reshape(-1, 1) * v) + [100, 50]
    corners, w, h = geometry.min_area_rect(points)
    assert sorted([w, h]) == pytest.approx([10, 40], abs=1e-6)
    assert np.allclose(np.linalg.norm(corners[1] - corners[0]) * np.linalg.norm(corners[3] - corners[0]),
                       400, atol=1e-6)


def test_corners_are_ordered_and_grown_by_the_distance():
    corners = geometry.order_corners(np.array([[30.0, 20], [10, 10], [30, 10], [10, 20]]))
    assert corners.tolist() == [[10, 10], [30, 10], [30, 20], [10, 20]]
    grown, w, h = geometry.grow_rect(corners, 2.0)
    assert (w, h) == (24.0, 14.0)
    assert grown.tolist() == [[8, 8], [32, 8], [32, 22], [8, 22]]


def test_reading_order_is_rows_then_left_to_right():
    def box(x, y):
        return np.array([[x, y], [x + 10, y], [x + 10, y + 5], [x, y + 5]], float)
    boxes = [box(50, 102), box(0, 100), box(0, 10), box(30, 55)]
    ordered = pipeline.reading_order(boxes)
    assert [tuple(b[0]) for b in ordered] == [(0, 10), (30, 55), (0, 100), (50, 102)]


def test_ctc_merges_repeats_and_drops_blanks():
    keys = ["", "a", "b"]
    best = [1, 1, 0, 1, 2, 2, 0]
    scores = np.full((len(best), 3), 0.1, np.float32)
    scores[np.arange(len(best)), best] = 0.8
    text, confidence = pipeline.ctc_greedy(scores, keys)
    assert text == "aab"
    assert confidence == pytest.approx(0.8)


def test_the_page_check_fails_on_a_misread_a_missing_and_an_extra_line():
    def line(x0, y0, x1, y1, text, turned=False):
        return {"box": np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float), "text": text,
                "turned": turned}
    truth = [("HELLO", (10, 10, 60, 30), False), ("WORLD", (10, 50, 60, 70), True)]
    right = [line(9, 9, 61, 31, "HELLO"), line(9, 49, 61, 71, "WORLD", turned=True)]
    assert ocr_page.score_against(truth, right) == (0.0, [])
    cer, problems = ocr_page.score_against(truth, [line(9, 9, 61, 31, "HELL0")] +
                                           [line(200, 200, 240, 220, "noise")])
    assert cer == pytest.approx(6 / 10)  # one substitution, five characters missing
    assert len(problems) == 4            # misread, WORLD not found (twice), an extra box
    _, problems = ocr_page.score_against(truth, [right[0], line(9, 49, 61, 71, "WORLD")])
    assert problems == ["'WORLD' is upside down but was not turned"]
