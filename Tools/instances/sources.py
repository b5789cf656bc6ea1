"""Where the instance data's pixels come from: DUTS foregrounds that are one object, and background
regions of other DUTS photos away from their salient objects.

Pairs are read through `liftpy.duts_data.load_split` (the WebDataset shards in ../shared/data,
decoded once and cached in the ignored Tools/.cache/duts/), so nothing here copies a photo.

The foreground rule (`foreground_info`), on the ground-truth mask cut at 128 (8-connectivity):
  - the largest connected component holds >= 99 % of the foreground pixels (the rest, specks, is
    dropped from the pasted alpha; a mask in several sizeable pieces may be several objects or one
    occluded object, which the generator cannot tell apart, so such photos are not used);
  - it covers 3-70 % of the photo (smaller ones are a few dozen pixels once scaled for four objects;
    larger ones are mostly scene, not object);
  - it does not look like two objects joined by a neck (`looks_like_several`: DUTS masks of two
    touching objects are one component, and pasted as one instance they would teach the network
    not to split exactly what it should split; the test is crude and also drops some single objects);
  - its bounding box reaches at most one side of the photo (within 1 px): an object cut by one side
    (a person cut at the waist) is pasted flush against that side of the canvas, so its cut edge
    stays a frame edge; one cut by two or more sides would show a straight cut inside the canvas.
Counts (`python -m liftpy.instances.sources train extra val`): DUTS-TR 8,823 of 10,553 (1,690 of
them cut by one side); DUTS-TE extra 2,441 of 4,019; DUTS-TE val500 301 of 500, of which
make_eval_set.py uses 254 (excluded-foregrounds.txt: 47 more that show several objects by eye).
By that look about one in six foregrounds that pass is a touching group (two animals, a rider and
horse, a parent holding a child); DUTS-TR's are not filtered by eye and remain label noise.

The background rule (`background_rect`): the largest axis-aligned rectangle of the photo at least
3 % of its longer side away from any mask pixel >= 32 (found on an 8-px grid); the photo serves as
a background source when that rectangle has a shorter side >= 64 px and >= 20 % of the photo's area.
Backgrounds are crops of that rectangle, enlarged to the canvas (so they are often softer than the
objects, as in a photo with a shallow depth of field).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from liftpy.duts_data import Joined, load_split

SIDES = ("top", "bottom", "left", "right")
DOMINANT = 0.99         # share of the foreground pixels the largest component must hold
AREA = (0.03, 0.70)     # the object's share of the photo
MAX_CUT_SIDES = 1       # photo sides the object may touch
SINGLE_SPECK = 0.0005   # untouched photos: components under this share of the photo are specks (Lift's own rule)
NECK, NECK_PIECE = 0.05, 0.10
BG_MIN_SIDE, BG_MIN_AREA, BG_MARGIN, BG_CELL = 64, 0.20, 0.03, 8


@dataclass(frozen=True)
class ForegroundInfo:
    """What the foreground rule measured on one mask; `ok` says whether it qualifies."""
    ok: bool
    box: tuple  # (y0, y1, x0, x1) of the largest component, grown by 2 px for its soft rim
    side: int   # index into SIDES of the one photo side it touches, or -1
    elongation: float  # sqrt of the ratio of the component's second moments (1 = round)
    area: float  # its share of the photo


def foreground_info(mask: np.ndarray) -> ForegroundInfo:
    """Applies the foreground rule (module docstring) to one uint8 mask."""
    h, w = mask.shape
    hard = (mask >= 128).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(hard, connectivity=8)
    if n <= 1:
        return ForegroundInfo(False, (0, 0, 0, 0), -1, 1.0, 0.0)
    areas = stats[1:, cv2.CC_STAT_AREA]
    k = int(areas.argmax())
    x, y, bw, bh, area = (int(v) for v in stats[1 + k])
    touched = [y <= 1, y + bh >= h - 1, x <= 1, x + bw >= w - 1]
    share = area / (h * w)
    ok = (area >= DOMINANT * areas.sum() and AREA[0] <= share <= AREA[1] and sum(touched) <= MAX_CUT_SIDES)
    side = touched.index(True) if sum(touched) == 1 else -1
    box = (max(0, y - 2), min(h, y + bh + 2), max(0, x - 2), min(w, x + bw + 2))
    if side == 0:
        box = (0,) + box[1:]
    elif side == 1:
        box = (box[0], h) + box[2:]
    elif side == 2:
        box = box[:2] + (0, box[3])
    elif side == 3:
        box = box[:3] + (w,)
    component = (labels[box[0]:box[1], box[2]:box[3]] == 1 + k).astype(np.uint8)
    ok = ok and not looks_like_several(component)
    m = cv2.moments(component, binaryImage=True)
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / max(m["m00"], 1)
    ev = np.linalg.eigvalsh(cov)
    elongation = float(np.sqrt(ev[1] / max(ev[0], 1e-6)))
    return ForegroundInfo(bool(ok), box, side, elongation, share)


def looks_like_several(component: np.ndarray) -> bool:
    """The neck test: True when eroding the component by a disk of radius NECK x sqrt(its area)
    leaves >= 2 pieces of >= NECK_PIECE of its area each, i.e. when it is two blobs joined by a
    narrow neck (in DUTS-TE val500 about half of the 14 it flags are two objects touching: riders,
    a person and an animal, two horses; the rest one object with a thin middle)."""
    area = int(component.sum())
    r = max(1, int(round(NECK * np.sqrt(area))))
    eroded = cv2.erode(component, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    n, _, stats, _ = cv2.connectedComponentsWithStats(eroded, connectivity=8)
    return int((stats[1:, cv2.CC_STAT_AREA] >= NECK_PIECE * area).sum()) >= 2


def largest_component(mask: np.ndarray) -> np.ndarray | None:
    """The largest 8-connected component of the mask cut at 128 (uint8 0/1, the mask's shape), or
    None when the mask is empty."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((mask >= 128).astype(np.uint8), connectivity=8)
    if n < 2:
        return None
    return (labels == 1 + int(stats[1:, cv2.CC_STAT_AREA].argmax())).astype(np.uint8)


def object_alpha(mask: np.ndarray) -> np.ndarray:
    """The soft ground truth (float32, 0-1) restricted to its largest component and that
    component's soft rim (2 px): one object's alpha, specks elsewhere dropped."""
    component = largest_component(mask)
    if component is None:
        return np.zeros(mask.shape, np.float32)
    return mask.astype(np.float32) * cv2.dilate(component, np.ones((5, 5), np.uint8)) * (1 / 255)


def solidity(mask: np.ndarray) -> float:
    """The largest 8-connected component of the mask cut at 128, as a share of its convex hull's area
    (1 for a convex region; a row of touching objects or a person's limbs lower it)."""
    component = largest_component(mask)
    if component is None:
        return 1.0
    contours, _ = cv2.findContours(component, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.contourArea(cv2.convexHull(np.concatenate(contours)))
    return float(min(1.0, component.sum() / max(1.0, hull)))


def is_single_object(mask: np.ndarray, neck_test: bool = False) -> bool:
    """True when the mask cut at 128 is one 8-connected component once specks under 0.05 % of the
    photo (what Lift itself drops) are ignored: the over-split check's "ground truth is one object".
    With `neck_test` that component must also pass `looks_like_several` (the untouched photos mixed
    into training)."""
    hard = (mask >= 128).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(hard, connectivity=8)
    big = np.nonzero(stats[1:, cv2.CC_STAT_AREA] >= SINGLE_SPECK * mask.size)[0]
    if len(big) != 1:
        return False
    if not neck_test:
        return True
    x, y, w, h = (int(v) for v in stats[1 + big[0], :4])
    return not looks_like_several((labels[y:y + h, x:x + w] == 1 + big[0]).astype(np.uint8))


def _largest_rectangle(empty: np.ndarray):
    """The largest all-True axis-aligned rectangle of a 2-D bool grid, as (y0, y1, x0, x1)."""
    gh, gw = empty.shape
    heights = np.zeros(gw, np.int64)
    best, rect = 0, (0, 0, 0, 0)
    for y in range(gh):
        heights = np.where(empty[y], heights + 1, 0)
        stack = []  # (start column, height), heights increasing
        for x in range(gw + 1):
            cur = int(heights[x]) if x < gw else 0
            start = x
            while stack and stack[-1][1] >= cur:
                s, hh = stack.pop()
                if hh * (x - s) > best:
                    best, rect = hh * (x - s), (y - hh + 1, y + 1, s, x)
                start = s
            stack.append((start, cur))
    return rect


def background_rect(mask: np.ndarray):
    """The background rule (module docstring): (y0, y1, x0, x1) of the photo's largest region away
    from its salient object, or None when it is too small to serve."""
    h, w = mask.shape
    r = max(3, round(BG_MARGIN * max(h, w)))
    near = cv2.dilate((mask >= 32).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2))
    c = BG_CELL
    gh, gw = h // c, w // c
    cells = near[:gh * c, :gw * c].reshape(gh, c, gw, c).max(axis=(1, 3)) == 0
    y0, y1, x0, x1 = (v * c for v in _largest_rectangle(cells))
    if min(y1 - y0, x1 - x0) < BG_MIN_SIDE or (y1 - y0) * (x1 - x0) < BG_MIN_AREA * h * w:
        return None
    return (y0, y1, x0, x1)


class SourceBank:
    """The qualifying foregrounds, background regions and single-object photos of some DUTS splits
    (names as in liftpy.duts_data.SPLITS: train, extra, val, ...), or of `split`, any object with
    `keys`, `__len__` and `pair(i) -> (photo, mask)` (a decoded pack on a lent GPU machine, say).
    Holds the decoded pairs and index tables only: crops are cut when asked for."""

    def __init__(self, split_names=("train",), exclude_foregrounds=(), split=None):
        self.names = tuple(split_names) if split is None else ("given split",)
        if split is None:
            splits = [load_split(n) for n in split_names]
            split = splits[0] if len(splits) == 1 else Joined(*splits)
        self.split = split
        self.keys = [str(k) for k in self.split.keys]
        exclude = set(exclude_foregrounds)
        self.excluded = 0
        fg, bg, single, single_solidity = [], [], [], []
        for i in range(len(self.split)):
            _, mask = self.split.pair(i)
            info = foreground_info(mask)
            if info.ok and self.keys[i] in exclude:
                self.excluded += 1
            elif info.ok:
                fg.append((i, *info.box, info.side, info.elongation))
            rect = background_rect(mask)
            if rect is not None:
                bg.append((i, *rect))
            if is_single_object(mask, neck_test=True):
                single.append(i)
                single_solidity.append(solidity(mask))
        self.fg = np.array(fg, dtype=np.float64).reshape(-1, 7)   # pair, y0, y1, x0, x1, side, elongation
        self.bg = np.array(bg, dtype=np.int64).reshape(-1, 5)     # pair, y0, y1, x0, x1
        self.single = np.array(single, dtype=np.int64)
        self.single_solidity = np.array(single_solidity, dtype=np.float32)  # `solidity` of each single photo

    def summary(self) -> str:
        excluded = f", {self.excluded} more excluded by name" if self.excluded else ""
        return (f"{'+'.join(self.names)}: {len(self.split)} pairs, {len(self.fg)} foregrounds "
                f"({int((self.fg[:, 5] >= 0).sum())} cut by one side{excluded}), {len(self.bg)} background regions, "
                f"{len(self.single)} single-object photos")

    def shape_weights(self, target: np.ndarray, bins: int = 10) -> np.ndarray:
        """Probabilities over the bank's foregrounds that give their solidity (`solidity` of each
        one's mask) the histogram of the foregrounds where `target` (bool, one per foreground) is
        True: weight = target's share of a solidity bin / the bank's share of it."""
        sol = np.array([solidity(self.split.pair(int(i))[1][int(y0):int(y1), int(x0):int(x1)])
                        for i, y0, y1, x0, x1, *_ in self.fg])
        b = np.minimum((sol * bins).astype(int), bins - 1)
        share = np.bincount(b, minlength=bins) / len(b)
        goal = np.bincount(b[target], minlength=bins) / max(1, int(target.sum()))
        w = np.where(share[b] > 0, goal[b] / np.maximum(share[b], 1e-12), 0.0)
        return w / w.sum()

    def foreground(self, j: int):
        """Foreground j: (rgb uint8 (h, w, 3), alpha float32 (h, w) in [0, 1], cut side or -1, key).
        The alpha is the soft ground truth restricted to its largest component and that component's
        soft rim (2 px)."""
        i, y0, y1, x0, x1, side, _ = self.fg[j]
        i, y0, y1, x0, x1 = (int(v) for v in (i, y0, y1, x0, x1))
        photo, mask = self.split.pair(i)
        return photo[y0:y1, x0:x1], object_alpha(mask[y0:y1, x0:x1]), int(side), self.keys[i]

    def background(self, j: int):
        """Background region j: (rgb uint8 view, key)."""
        i, y0, y1, x0, x1 = (int(v) for v in self.bg[j])
        return self.split.pair(i)[0][y0:y1, x0:x1], self.keys[i]

    def photo(self, j: int):
        """Single-object photo j: (rgb uint8, mask uint8, key)."""
        i = int(self.single[j])
        photo, mask = self.split.pair(i)
        return photo, mask, self.keys[i]


if __name__ == "__main__":
    import argparse
    import time
    ap = argparse.ArgumentParser(description="Counts what the foreground and background rules keep in DUTS splits.")
    ap.add_argument("splits", nargs="*", default=["train", "extra", "val"])
    for name in ap.parse_args().splits:
        t = time.time()
        bank = SourceBank((name,))
        print(f"{bank.summary()} ({time.time() - t:.1f} s)")
