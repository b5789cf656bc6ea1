"""Instances from the subject network's maps: Panoptic-DeepLab's grouping, held back by
connected components and a predicted touching boundary. numpy + OpenCV only, one pure function,
`group`, meant to be ported to Swift as it stands once a design is chosen by measurement.
`.venv/bin/python -m liftpy.instances.group` runs `self_check` (cases a Swift port can reuse).

Inputs, at model resolution (the network input, e.g. 256 x 256, the photo stretched to it):
  fg        (h, w) foreground probability (the subject map, what Lift thresholds today)
  centre    (hc, wc) centre-heatmap probability (sigmoid of subject_model.InstanceHeads' `centre`;
            hc = h / stride, cell (i, j) at model pixel (s * i + (s - 1) / 2, ...))
  offset    (2, hc, wc) (dy, dx) from each cell to its instance's centre, in model pixels
  boundary  (hc, wc) touching-boundary probability, or None (no boundary check: offsets alone split)
  photo size (H, W)
Output: (H, W) int32 label map, 0 background, 1..n instances largest first (ties: the first pixel in
raster order), as Lift's label maps are.

The steps (thresholds are keyword arguments; tune them on Tools/instances/.work/tune only):
 1. The foreground mask: `fg` resized to the photo (bilinear, half-pixel centres) >= fg_threshold;
    its 8-connected components, those under `speck` of the photo dropped (Lift's rule, 0.05 %).
    This is today's answer, and the union of the instances is always exactly this mask.
 2. Centre peaks: cells that are the maximum of their nms x nms window and >= centre_threshold,
    the top_k by score. One peak or none: return the components (step 1), as today.
 3. Every foreground pixel votes: its model-pixel position + its offset (bilinear from the cell
    grid) is where it says its centre is; it joins the nearest peak. With min_support > 0, a peak
    whose votes landing within join_distance model pixels of it cover less than min_support of
    the photo is no centre (a local maximum the offsets do not point at) and is dropped, and the
    pixels vote again among the rest; one peak left or none: the components, as in step 2. A
    piece is all the pixels of one component that join one peak, connected or not (so the two
    visible parts of an object cut by an occluder that is itself foreground are one piece).
    Pieces under min_piece of the photo are given to the larger piece of their component they
    border most (or its largest), so no sliver becomes an instance.
 4. Boundary check before splitting: two pieces of one component that border each other stay
    apart only if the mean predicted boundary on their shared border is >= boundary_threshold;
    otherwise they are merged (so without a predicted seam the component stays whole, as today).
    With split_check (bias, peak, seam, spread[, support]) weights, they also stay apart only if
    the split check's probability sigmoid(bias + peak * logit(s) + seam * ln(b) + spread * ln(d)
    [+ support * ln(u)]) is >= split_probability, where s is the weaker of their two peaks' scores,
    b the mean boundary on their border (as above), d the distance between their peaks over the
    square root of their component's area, both in model pixels, and u the smaller of their two
    peaks' supports (the share of the photo whose votes land within join_distance of the peak,
    after any drop; the support test's measure, here weighed rather than thresholded) (s clipped
    to [0.001, 0.999], b and d to >= 0.001, u to >= 0.0001). A
    logistic regression fitted on candidate splits of Tools/instances/.work/fit (fit_split_check.py):
    a real seam, a confident weaker peak and centres far apart for the object's size mark two
    objects; a spurious second peak on one object has none of them. Both checks need the boundary
    map; without one the offsets alone split.
 5. Occlusion across components: instances (after step 4) whose pixels mostly vote for the same
    peak, with a median miss under join_distance model pixels (their votes land on it), become
    one: the parts of an object cut apart by something that is not foreground (a pole, a gap in
    the mask) come out as one. An instance whose votes land near no peak stays as it is.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from liftpy.instances.targets import instance_targets


@dataclass(frozen=True)
class GroupParams:
    """`group`'s thresholds (module docstring, steps 1-5)."""
    fg_threshold: float = 0.5
    speck: float = 0.0005          # share of the photo: smaller components are dropped (Lift's rule)
    centre_threshold: float = 0.1  # Panoptic-DeepLab's default on its heatmap
    nms: int = 3                   # window in cells (3 cells = 12 model px at stride 4)
    top_k: int = 8
    min_piece: float = 0.005       # share of the photo (the metrics' meaningful segment)
    boundary_threshold: float | None = 0.3  # None: no boundary check (predict.py passes no map)
    join_distance: float = 12.0    # model pixels
    min_support: float = 0.0       # share of the photo voting within join_distance of a peak; 0: no test
    split_check: tuple | None = None  # (bias, peak, seam, spread[, support]) weights of step 4's split check; None: none
    split_probability: float = 0.5    # the split check's probability that keeps two pieces apart

    def __post_init__(self):
        if not 0 < self.split_probability < 1:
            raise ValueError(f"split_probability {self.split_probability} is not inside (0, 1)")
        if self.split_check is not None and len(self.split_check) not in (4, 5):
            raise ValueError(f"split_check {self.split_check} is not four or five weights "
                             "(bias, peak, seam, spread[, support])")


# The thresholds tuned for the shipped subject model's heads (Weights/subject-instances.safetensors,
# docs/models/instances.md): predict.py --tune's best PQ a standard error inside the over-split bound,
# with the split check fit_split_check.py --support --min-support 0 fitted on those heads (five weights:
# the peaks' support weighed, no hard support test; with four, the three-cups photo lost a cup). They
# are kept in Tools/conversion/subject_recipe.json's `grouping`, which the export writes into the heads'
# file (`lift.recipe`) for Lift's InstanceGrouping; heads trained again are tuned and fitted again and
# that file changes.
RECIPE_FILE = Path(__file__).resolve().parents[1] / "conversion/subject_recipe.json"


def recipe_params(grouping: dict) -> GroupParams:
    """A recipe's `grouping` (Lift's names, GRAPH-FORMAT.md "Recipe") as GroupParams; its
    `affinity_split` is affinity_split.py's."""
    check = grouping["split_check"]
    return GroupParams(centre_threshold=grouping["centre_threshold"], nms=grouping["peak_window"],
                       top_k=grouping["maximum_peaks"], min_piece=grouping["minimum_piece"],
                       boundary_threshold=grouping["boundary_threshold"], join_distance=float(grouping["join_distance"]),
                       min_support=float(grouping["minimum_support"]),
                       split_check=None if check is None else tuple(check[k] for k in ("bias", "peak", "seam", "spread", "support")),
                       split_probability=0.5 if check is None else check["probability"])


SHIPPED_GROUPING = json.loads(RECIPE_FILE.read_text(encoding="utf-8"))["grouping"]
SHIPPED = recipe_params(SHIPPED_GROUPING)


def peaks(centre: np.ndarray, threshold: float, nms: int, top_k: int) -> np.ndarray:
    """(n, 3) rows (row, column, score) of the centre map's local maxima (nms x nms window) with
    score >= threshold, best first, at most top_k. Rows and columns are cell indices."""
    c = centre.astype(np.float32)
    pooled = cv2.dilate(c, np.ones((nms, nms), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    ys, xs = np.nonzero((c >= pooled) & (c >= threshold))
    scores = c[ys, xs]
    order = np.lexsort((xs, ys, -scores))[:top_k]  # best first; ties in raster order
    return np.stack([ys[order], xs[order], scores[order]], axis=1) if len(order) else np.zeros((0, 3))


def ordered(labels: np.ndarray, count: int) -> np.ndarray:
    """Relabels 1..count by decreasing area (ties: first pixel in raster order), as Lift numbers
    instances; empty labels disappear."""
    flat = labels.ravel()
    areas = np.bincount(flat, minlength=count + 1)[1:]
    first = np.full(count + 1, flat.size, np.int64)
    nz = np.nonzero(flat)[0]
    np.minimum.at(first, flat[nz], nz)
    present = np.nonzero(areas)[0] + 1
    order = present[np.lexsort((first[present], -areas[present - 1]))]
    lut = np.zeros(count + 1, np.int32)
    lut[order] = np.arange(1, len(order) + 1, dtype=np.int32)
    return lut[labels]


def components(mask: np.ndarray, speck: float) -> tuple[np.ndarray, int]:
    """8-connected components of a bool mask, those under `speck` of the image set to 0; (labels, n)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask.view(np.uint8), connectivity=8)
    keep = np.zeros(n, np.int32)
    big = np.nonzero(stats[1:, cv2.CC_STAT_AREA] >= speck * mask.size)[0] + 1
    keep[big] = np.arange(1, len(big) + 1)
    return keep[lab], len(big)


def _neighbour_pairs(lab: np.ndarray):
    """Codes a * M + b (a != b, both > 0, M = lab.max() + 1) of 4-neighbouring pixels with labels
    a and b, and the flat indices of both pixels of each such neighbour pair."""
    m = int(lab.max()) + 1
    codes, pix = [], []
    idx = np.arange(lab.size).reshape(lab.shape)
    for a, b, ia, ib in ((lab[:, :-1], lab[:, 1:], idx[:, :-1], idx[:, 1:]),
                         (lab[:-1, :], lab[1:, :], idx[:-1, :], idx[1:, :])):
        sel = (a != b) & (a > 0) & (b > 0)
        lo, hi = np.minimum(a[sel], b[sel]), np.maximum(a[sel], b[sel])
        codes.append(lo.astype(np.int64) * m + hi)
        pix.append(np.stack([ia[sel], ib[sel]], axis=1))
    return np.concatenate(codes), np.concatenate(pix), m


class _Union:
    def __init__(self, n):
        self.parent = list(range(n))

    def find(self, i):
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, i, j):
        i, j = self.find(i), self.find(j)
        if i != j:
            self.parent[max(i, j)] = min(i, j)


@dataclass
class _Pieces:
    """Steps 1-3's result: the pieces (photo-size map, c * n_pk + k + 1 for component c's pixels
    voting for peak k, after the slivers' merge), their areas, the peaks (rows of `peaks`, their
    model-pixel centres py, px, and their supports: the share of the photo whose votes land within
    join_distance of each), and every foreground pixel's (ys, xs), vote and miss."""
    piece: np.ndarray
    area: np.ndarray
    n_comp: int
    pk: np.ndarray
    py: np.ndarray
    px: np.ndarray
    support: np.ndarray
    ys: np.ndarray
    xs: np.ndarray
    vote: np.ndarray
    miss: np.ndarray
    model_per_photo: float  # model pixels per photo pixel (h * w / (H * W))

    @property
    def n_pk(self) -> int:
        return len(self.pk)


def _pieces(fg, centre, offset, photo_size, p: GroupParams):
    """Steps 1-3 (module docstring): a _Pieces, or the components' label map when the grouping
    stops there (one peak or none)."""
    H, W = photo_size
    h, w = fg.shape
    hc, wc = centre.shape
    mask = cv2.resize(fg.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR) >= p.fg_threshold
    comp, n_comp = components(mask, p.speck)
    pk = peaks(centre, p.centre_threshold, p.nms, p.top_k)
    if len(pk) <= 1 or n_comp == 0:
        return ordered(comp, n_comp)
    # Peaks in model pixels; every foreground pixel's vote in model pixels.
    sy, sx = h / hc, w / wc
    py = pk[:, 0] * sy + (sy - 1) / 2
    px = pk[:, 1] * sx + (sx - 1) / 2
    ys, xs = np.nonzero(comp)
    vy = (ys + 0.5) * h / H - 0.5
    vx = (xs + 0.5) * w / W - 0.5
    # cv2.resize maps photo pixel centres onto the cell grid with the same half-pixel convention.
    dy = cv2.resize(offset[0].astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)[ys, xs]
    dx = cv2.resize(offset[1].astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)[ys, xs]
    d2 = ((vy + dy)[:, None] - py[None]) ** 2 + ((vx + dx)[:, None] - px[None]) ** 2
    vote = d2.argmin(axis=1)
    miss = np.sqrt(d2[np.arange(len(vote)), vote])
    if p.min_support > 0:  # step 3's support test: peaks the votes do not land on are dropped
        near = np.bincount(vote[miss < p.join_distance], minlength=len(pk))
        kept = np.nonzero(near >= p.min_support * H * W)[0]
        if len(kept) <= 1:
            return ordered(comp, n_comp)
        if len(kept) < len(pk):
            pk, py, px, d2 = pk[kept], py[kept], px[kept], d2[:, kept]
            vote = d2.argmin(axis=1)
            miss = np.sqrt(d2[np.arange(len(vote)), vote])
    n_pk = len(pk)
    # Pieces: (component, peak) pairs, numbered c * n_pk + k + 1.
    piece = np.zeros((H, W), np.int64)
    piece[ys, xs] = (comp[ys, xs] - 1).astype(np.int64) * n_pk + vote + 1
    n_piece = n_comp * n_pk
    area = np.bincount(piece.ravel(), minlength=n_piece + 1)
    # Step 3: slivers go to the larger neighbouring piece of their component they border most.
    small = [i for i in np.nonzero(area)[0] if i > 0 and area[i] < p.min_piece * H * W]
    if small:
        codes, _, m = _neighbour_pairs(piece)
        uniq, counts = np.unique(codes, return_counts=True)
        contact = {}
        for code, cnt in zip(uniq.tolist(), counts.tolist()):
            a, b = divmod(code, m)
            contact.setdefault(a, []).append((cnt, b))
            contact.setdefault(b, []).append((cnt, a))
        lut = np.arange(n_piece + 1)
        for i in sorted(small, key=lambda i: area[i]):
            c = (i - 1) // n_pk
            same = [(cnt, j) for cnt, j in contact.get(i, []) if (j - 1) // n_pk == c and area[j] >= p.min_piece * H * W]
            if same:
                target = max(same)[1]
            else:  # no larger neighbour: the component's largest piece
                members = np.arange(c * n_pk + 1, (c + 1) * n_pk + 1)
                target = int(members[area[members].argmax()])
            lut[i] = target
        # Follow chains (a sliver given to a piece that is itself given away does not happen: only
        # pieces >= min_piece receive, or the largest piece, which is never small unless all are).
        piece = lut[piece]
        area = np.bincount(piece.ravel(), minlength=n_piece + 1)
    support = np.bincount(vote[miss < p.join_distance], minlength=n_pk) / (H * W)
    return _Pieces(piece, area, n_comp, pk, py, px, support, ys, xs, vote, miss, h * w / (H * W))


def _seams(pc: _Pieces, boundary, photo_size):
    """{(i, j): mean boundary probability on their border} for every two bordering pieces i < j
    (4-neighbour pixel pairs, each the mean of its two pixels' bilinear boundary values); None
    for the means when boundary is None."""
    H, W = photo_size
    codes, pix, m = _neighbour_pairs(pc.piece)
    if not len(codes):
        return {}
    uniq, inverse = np.unique(codes, return_inverse=True)
    pairs = [divmod(code, m) for code in uniq.tolist()]
    if boundary is None:
        return {pair: None for pair in pairs}
    b = cv2.resize(boundary.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR).ravel()
    seam = np.bincount(inverse, weights=b[pix].mean(axis=1)) / np.bincount(inverse)
    return dict(zip(pairs, seam.tolist()))


def split_features(pc: _Pieces, i: int, j: int, seam: float) -> tuple[float, float, float, float]:
    """Step 4's split check's inputs for bordering pieces i and j (module docstring): (the weaker
    peak's score, the mean boundary on their border, their peaks' distance over the square root of
    their component's area, model pixels, the smaller of their peaks' supports), each clipped as the
    check clips it."""
    a, b = (i - 1) % pc.n_pk, (j - 1) % pc.n_pk
    c = (i - 1) // pc.n_pk
    s = min(max(min(pc.pk[a, 2], pc.pk[b, 2]), 0.001), 0.999)
    component = float(pc.area[c * pc.n_pk + 1:(c + 1) * pc.n_pk + 1].sum()) * pc.model_per_photo
    spread = math.hypot(pc.py[a] - pc.py[b], pc.px[a] - pc.px[b]) / math.sqrt(component)
    return float(s), max(seam, 0.001), max(spread, 0.001), max(float(min(pc.support[a], pc.support[b])), 0.0001)


def split_score(weights, features) -> float:
    """The split check's log-odds: bias + peak * logit(s) + seam * ln(b) + spread * ln(d), + support *
    ln(u) with five weights."""
    s, b, d, u = features
    bias, w_peak, w_seam, w_spread, w_support = (*weights, 0.0)[:5]
    return (bias + w_peak * math.log(s / (1 - s)) + w_seam * math.log(b) + w_spread * math.log(d)
            + (w_support * math.log(u) if w_support else 0.0))


def split_candidates(fg, centre, offset, boundary, photo_size, params: GroupParams):
    """What step 4 decides on, for fitting the split check (fit_split_check.py): (the pieces' map,
    [(i, j, split_features)] for every two bordering pieces of one component); (None, []) when
    the grouping stops at the components. Needs the boundary map."""
    pc = _pieces(fg, centre, offset, photo_size, params)
    if not isinstance(pc, _Pieces):
        return None, []
    return pc.piece, [(i, j, split_features(pc, i, j, seam)) for (i, j), seam in _seams(pc, boundary, photo_size).items()]


def group(fg, centre, offset, boundary, photo_size, params: GroupParams = GroupParams(), **overrides) -> np.ndarray:
    """The instance label map at photo size (module docstring). `overrides`: GroupParams fields."""
    p = GroupParams(**(asdict(params) | overrides))
    pc = _pieces(fg, centre, offset, photo_size, p)
    if not isinstance(pc, _Pieces):
        return pc
    n_piece = pc.n_comp * pc.n_pk
    # Step 4: the boundary check and the split check between bordering pieces of one component
    # (pieces of different components never border). Without a boundary map the offsets alone split.
    u = _Union(n_piece + 1)
    if boundary is not None and (p.boundary_threshold is not None or p.split_check is not None):
        keep = math.log(p.split_probability / (1 - p.split_probability))
        for (i, j), seam in _seams(pc, boundary, photo_size).items():
            if p.boundary_threshold is not None and seam < p.boundary_threshold:
                u.join(i, j)
            elif p.split_check is not None and split_score(p.split_check, split_features(pc, i, j, seam)) < keep:
                u.join(i, j)
    # Step 5: instances whose votes land on the same peak join, even across components.
    piece, vote, miss, n_pk = pc.piece, pc.vote, pc.miss, pc.n_pk
    flat = piece[pc.ys, pc.xs]
    root = np.array([u.find(i) for i in range(n_piece + 1)], np.int64)
    flat_root = root[flat]
    landing = {}  # peak -> roots whose dominant peak it is and whose votes land within join_distance
    for r in np.unique(flat_root).tolist():
        sel = flat_root == r
        k = int(np.bincount(vote[sel], minlength=n_pk).argmax())
        if np.median(miss[sel & (vote == k)]) < p.join_distance:
            landing.setdefault(k, []).append(r)
    for roots in landing.values():
        for r in roots[1:]:
            u.join(roots[0], r)
    root = np.array([u.find(i) for i in range(n_piece + 1)], np.int64)
    root[0] = 0
    return ordered(root[piece].astype(np.int32), n_piece)


def self_check():
    """Perfect maps (targets.py's, sampled at /4) of a scene with two touching squares, one object
    seen in two separate parts and a lone blob: `group` must find 4 instances (the two parts one),
    merge the touching pair when no boundary is predicted between them, fall back to the
    components without peaks, drop a spurious peak the offsets do not point at, let the split
    check join a weak one back, and join a confident one back when it weighs the support. Prints what it found; raises if any case fails."""
    ids = np.zeros((256, 256), np.uint8)
    ids[40:120, 30:110], ids[40:120, 110:190] = 1, 2                 # touching pair
    ids[160:200, 20:80], ids[160:200, 100:160] = 3, 3                 # one object in two parts
    ids[170:230, 200:250] = 4
    centre, offset, boundary = instance_targets(ids, 4, 4.0, 2)
    # cell (i, j) stands for model pixel 4i + 1.5: sample pixel 4i + 1 and shift the offsets by 0.5
    c4, o4, b4 = centre[1::4, 1::4], offset[:, 1::4, 1::4] - 0.5, boundary[1::4, 1::4].astype(np.float32)
    fg = (ids > 0).astype(np.float32)
    # A spurious peak in the lone blob's right half, where the offsets are lost (zero: each pixel
    # votes for itself): without the support test the blob splits; with it the peak is dropped.
    c_spur, o_spur = c4.copy(), o4.copy()
    c_spur[50, 59] = 1.0                                              # model pixel (201.5, 237.5)
    o_spur[:, 42:58, 56:63] = 0.0
    # The same peak at 0.3, no seam under it: the split check joins it back (the pair keeps its seam).
    c_weak = c_spur.copy()
    c_weak[50, 59] = 0.3
    cases = {"heads": (group(fg, c4, o4, b4, (320, 300)), 4),
             "a spurious peak, no support test": (group(fg, c_spur, o_spur, b4, (256, 256), boundary_threshold=None), 5),
             "a spurious peak, support test": (group(fg, c_spur, o_spur, b4, (256, 256), boundary_threshold=None,
                                                     min_support=0.012), 4),
             "support above every peak's (components)": (group(fg, c4, o4, b4, (256, 256), min_support=0.5), 4),
             "a weak spurious peak, no check": (group(fg, c_weak, o_spur, b4, (256, 256), boundary_threshold=None), 5),
             "a weak spurious peak, split check": (group(fg, c_weak, o_spur, b4, (256, 256), boundary_threshold=None,
                                                         split_check=(5.0, 1.0, 0.85, 1.3)), 4),
             "a spurious peak, split check weighing support": (group(fg, c_spur, o_spur, b4, (256, 256),
                                                                     boundary_threshold=None,
                                                                     split_check=(5.0, 1.0, 0.85, 1.3, 1.0)), 4),
             "no boundary map (offsets alone)": (group(fg, c4, o4, None, (256, 256)), 4),
             "boundary predicted nowhere": (group(fg, c4, o4, np.zeros_like(b4), (256, 256)), 3),
             "no peaks (components)": (group(fg, np.zeros_like(c4), o4, b4, (256, 256)), 4)}
    for name, (labels, want) in cases.items():
        print(f"{name}: {labels.max()} instances (want {want}), areas {np.bincount(labels.ravel())[1:].tolist()}")
        if labels.max() != want:
            raise SystemExit(f"group.py self-check failed: {name}")
    parts = cases["heads"][0][int(180 * 320 / 256), [int(50 * 300 / 256), int(130 * 300 / 256)]]  # photo 320 x 300
    if parts[0] != parts[1] or parts[0] == 0:
        raise SystemExit("group.py self-check failed: the two parts of one object are not one instance")
    print("group.py self-check passed")


if __name__ == "__main__":
    self_check()
