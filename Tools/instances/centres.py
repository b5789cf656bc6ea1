"""Where an instance's centre is, on batches of instance id maps (N, H, W) (0 background, 1..K):
its visible pixels' centre of mass, or their innermost pixel (the pole of inaccessibility). The
trainer's instance targets put the heads' centre there (training_recipe.instance_targets, its
`centre_target`), and peak_coverage checks a run's centre maps against the same points."""
from __future__ import annotations

import cv2
import numpy as np
import torch


def centres_of_mass(ids, k):
    """(mass, cy, cx) float32 (N, k) for the id maps (N, H, W) with ids 0..k-1: each id's pixel count
    and the mean row and column (input pixels) of its pixels (0 where an id is absent)."""
    n, h, w = ids.shape
    ids = ids.long()
    yy = torch.arange(h, dtype=torch.float64).view(1, h, 1).expand(n, h, w)
    xx = torch.arange(w, dtype=torch.float64).view(1, 1, w).expand(n, h, w)
    flat = (ids + k * torch.arange(n).view(n, 1, 1)).reshape(-1)
    mass = torch.zeros(n * k, dtype=torch.float64).index_add_(0, flat, torch.ones_like(flat, dtype=torch.float64))
    cy = torch.zeros(n * k, dtype=torch.float64).index_add_(0, flat, yy.reshape(-1)) / mass.clamp_min(1)
    cx = torch.zeros(n * k, dtype=torch.float64).index_add_(0, flat, xx.reshape(-1)) / mass.clamp_min(1)
    return tuple(t.view(n, k).float() for t in (mass, cy, cx))


def poles(ids, my, mx):
    """(cy, cx) float32 (N, k), input pixels: for each instance 1..k-1 of the id maps (N, H, W) (column
    0, the background, and absent instances: 0), its visible region's innermost pixel (the pole of
    inaccessibility): the pixel farthest from the region's outside (the photo's edge counts as
    outside), of those within 1 px of that depth the one nearest the region's centre of mass (`my`,
    `mx`: `centres_of_mass`' (N, k) rows and columns). For a convex, symmetric region it is the centre
    of mass; for a crescent (an object partly covered by another) it lies in the crescent's thickest
    part instead of near the edge of the one covering it."""
    arr = ids.cpu().numpy().astype(np.int32)
    n, h, w = arr.shape
    k = my.shape[1]
    my, mx = my.numpy(), mx.numpy()
    cy, cx = np.zeros((n, k), np.float32), np.zeros((n, k), np.float32)
    for b in range(n):
        for j in np.unique(arr[b]).tolist():
            if j == 0:
                continue
            region = np.pad((arr[b] == j).astype(np.uint8), 1)
            depth = cv2.distanceTransform(region, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)[1:-1, 1:-1]
            ys, xs = np.nonzero(depth >= depth.max() - 1)
            pick = int(np.argmin((ys - my[b, j]) ** 2 + (xs - mx[b, j]) ** 2))
            cy[b, j], cx[b, j] = ys[pick], xs[pick]
    return torch.from_numpy(cy), torch.from_numpy(cx)
