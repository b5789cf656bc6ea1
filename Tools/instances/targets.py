"""Training targets and pair relations computed from an instance id map (0 = background, 1..K).

Panoptic-DeepLab targets (Cheng et al., CVPR 2020), at the id map's own resolution:
  centre    float32 (H, W): max over instances of a Gaussian (sigma px) at the instance's centre of
            mass (the mean (row, column) index of its visible pixels; for an object cut into two
            visible pieces by an occluder it lies between them, so both pieces vote for one centre);
  offset    float32 (2, H, W): (dy, dx) = centre - pixel index, in pixels of this map, on the
            instance's pixels; 0 on background. Divide by the map size to normalise;
            at an output stride s, sample every s-th pixel and divide by s.
  boundary  uint8 (H, W): 1 on pixels (foreground or background) within r px (Euclidean disk) of
            two different instances: where touching objects meet, and narrow gaps between them.
Pair relations (for the evaluation set's strata and the split rate):
  overlap   the amodal (whole, hidden parts included) masks share >= 1 % of the smaller one;
  touch     otherwise, the visible regions come within r px (their r-px dilations meet);
  gap       neither. "Touching pairs" of the split rate are those whose visible regions come within
            r px, overlap or touch.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np


@lru_cache(maxsize=8)
def _disk(r: int):
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


@lru_cache(maxsize=8)
def _grid(h: int, w: int):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    yy.setflags(write=False)
    xx.setflags(write=False)
    return yy, xx


def centres(ids: np.ndarray, count: int):
    """Centre of mass (row, column) of each instance 1..count (NaN for an absent one)."""
    h, w = ids.shape
    yy, xx = _grid(h, w)
    flat = ids.ravel()
    n = np.bincount(flat, minlength=count + 1)[1:count + 1].astype(np.float64)
    sy = np.bincount(flat, weights=yy.ravel(), minlength=count + 1)[1:count + 1]
    sx = np.bincount(flat, weights=xx.ravel(), minlength=count + 1)[1:count + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack([sy / n, sx / n], axis=1)


def instance_targets(ids: np.ndarray, count: int, sigma: float = 4.0, r: int = 2):
    """Centre heatmap, offsets and touching-boundary map (module docstring) of an id map."""
    h, w = ids.shape
    yy, xx = _grid(h, w)
    centre = np.zeros((h, w), np.float32)
    offset = np.zeros((2, h, w), np.float32)
    near = np.zeros((h, w), np.uint8)
    cs = centres(ids, count)
    reach = int(np.ceil(3 * sigma))
    for i in range(count):
        cy, cx = cs[i]
        if not np.isfinite(cy):
            continue
        m = ids == i + 1
        offset[0][m] = cy - yy[m]
        offset[1][m] = cx - xx[m]
        y0, y1 = max(0, int(cy) - reach), min(h, int(cy) + reach + 2)
        x0, x1 = max(0, int(cx) - reach), min(w, int(cx) + reach + 2)
        g = np.exp(-((yy[y0:y1, x0:x1] - cy) ** 2 + (xx[y0:y1, x0:x1] - cx) ** 2) / np.float32(2 * sigma * sigma))
        np.maximum(centre[y0:y1, x0:x1], g, out=centre[y0:y1, x0:x1])
        if count > 1:
            near += cv2.dilate(m.view(np.uint8), _disk(r))
    boundary = (near >= 2).astype(np.uint8)
    return centre, offset, boundary


def pair_relations(ids: np.ndarray, amodal, r: int = 2):
    """[(i, j, relation, adjacent)] for every pair i < j of instances 1..K (K = len(amodal)):
    relation overlap / touch / gap as in the module docstring; adjacent: visible regions within r px."""
    K = len(amodal)
    dil = [cv2.dilate((ids == i + 1).view(np.uint8), _disk(r)).astype(bool) for i in range(K)]
    vis = [ids == i + 1 for i in range(K)]
    out = []
    for i in range(K):
        for j in range(i + 1, K):
            shared = int(np.count_nonzero(amodal[i] & amodal[j]))
            smaller = max(1, min(int(amodal[i].sum()), int(amodal[j].sum())))
            adjacent = bool(np.any(dil[i] & vis[j]))
            rel = "overlap" if shared >= 0.01 * smaller else ("touch" if adjacent else "gap")
            out.append((i + 1, j + 1, rel, adjacent))
    return out


def visible_pieces(ids: np.ndarray, label: int, min_share: float = 0.1) -> int:
    """How many 8-connected pieces instance `label` is visible in, counting pieces of at least
    `min_share` of its visible area."""
    m = (ids == label).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    total = max(1, int(m.sum()))
    return int((stats[1:, cv2.CC_STAT_AREA] >= min_share * total).sum())
