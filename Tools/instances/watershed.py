"""Baseline (b): split Lift's foreground into instances with a distance-transform watershed.

The foreground is Lift's own (the pixels its label map gives to any subject, so connected
components are baseline (a) on exactly the same pixels). Each pixel's Euclidean distance to the
background, optionally Gaussian-smoothed (sigma = `sigma` x the image's longer side), is flooded from
its h-maxima (regional maxima that stand at least `h` x the longer side above their surroundings:
one marker per "bulge" of the mask), within the mask. A component without a deep enough bulge keeps
one marker (its highest point), so the watershed only ever splits connected components, never
merges them. Touching round objects separate at their waist; elongated and irregular objects
(people, animals with legs) also break at their narrow parts, which is what the tuning trades off.

Parameters chosen on the tuning set (make_eval_set.py --set tune: DUTS-TE extra pairs, never the
eval set) by `eval_instances.py --tune`: H, SIGMA give the best PQ over all its images (composites and
untouched single-object photos) and over-split a third of the photos; H_BOUNDED, SIGMA_BOUNDED give
the best PQ among settings whose over-split on those photos stays within 2 points of connected
components' (the bound a model is held to), and then split almost no touching pair.
"""
from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi
from skimage.morphology import h_maxima
from skimage.segmentation import watershed

H, SIGMA = 0.01, 0.005
H_BOUNDED, SIGMA_BOUNDED = 0.12, 0.01


def watershed_instances(foreground: np.ndarray, h: float = H, sigma: float = SIGMA) -> np.ndarray:
    """uint16 label map (0 background, 1.. by decreasing area) of a bool (H, W) foreground."""
    fg = np.asarray(foreground, bool)
    if not fg.any():
        return np.zeros(fg.shape, np.uint16)
    side = max(fg.shape)
    dist = ndi.distance_transform_edt(fg)
    if sigma > 0:
        dist = ndi.gaussian_filter(dist, sigma * side) * fg
    markers, n = ndi.label(h_maxima(dist, h * side), structure=np.ones((3, 3)))
    # a component whose whole bulge is lower than h has no h-maximum: its highest pixel becomes its marker
    components, count = ndi.label(fg, structure=np.ones((3, 3)))
    marked = np.zeros(count + 1, bool)
    marked[components[markers > 0]] = True
    for c in np.nonzero(~marked[1:])[0] + 1:
        inside = np.where(components == c, dist, -1.0)
        n += 1
        markers.flat[int(inside.argmax())] = n
    labels = watershed(-dist, markers, mask=fg)
    areas = np.bincount(labels.ravel())
    order = np.argsort(-areas[1:], kind="stable") + 1
    remap = np.zeros(len(areas), np.uint16)
    remap[order] = np.arange(1, len(order) + 1)
    return remap[labels]
