"""How far the affinity split could go with perfect cues, and how far apart the branch's cues are
(docs/decisions/0006-what-the-instance-heads-tried.md). On the tuning set's composites only:

  .venv/bin/python -m liftpy.instances.split_ceiling                       # the shipped branch
  .venv/bin/python -m liftpy.instances.split_ceiling --checkpoint RUN/last.pt

Three groupings of each set of cues, by the composites' split rate (eval_instances.py's, per
relation):
  shipped    affinity_split.py's mutex watershed at SHIPPED_SPLIT (bias, pieces of 3 % of the grid)
  small      the same with pieces of 0.5 % (the metric's smallest meaningful segment)
  average    average-linkage agglomeration (GASP's average, Bailoni et al. 2019) over every pair of
             all six channels, merging while the mean same-instance probability between two
             clusters is over a threshold (0.5 on the ground truth's cues, each of --thresholds on
             the branch's, whose probabilities the class-balanced loss leaves low), pieces of
             0.5 % (--branch-piece on the branch's: its pairs within an object are noisy enough
             that smaller pieces only fragment it): long pairs attract too, so the visible pieces of an occluded object can join
             across the object in front
Each grouping runs after group.SHIPPED's instances, and `average` also on the whole foreground.
Cues: `truth`, the ground truth's cell labels (a pair within one instance 0.9, across two 0.1),
and `branch`, the network's maps (affinity_split.py's cached raw-tune.npz under --out). Then the
area under the ROC of the branch's probabilities, same-instance pairs against pairs across two
instances (both cells on ground-truth objects), per channel and relation.
"""
from __future__ import annotations

import argparse
import heapq
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from liftpy.instances.affinity_split import (OFFSETS, SHIPPED_SPLIT, SHIPPED_WEIGHTS, affinity_split, cell_positions,
                                             first_seen, maps, split_instances)
from liftpy.instances.eval_instances import read_set
from liftpy.instances.group import SHIPPED
from liftpy.instances.metrics import score_image
from liftpy.instances.predict import WORK, label_maps

HERE = Path(__file__).resolve().parent

SMALL_PIECE = 0.005


def truth_affinity(cell_ids: np.ndarray, within: float = 0.9) -> np.ndarray:
    """(len(OFFSETS), hc, wc) pair probabilities from (hc, wc) ground-truth ids: `within` for a
    pair in one instance (background counts as one), 1 - `within` across two; pairs off the grid 0."""
    hc, wc = cell_ids.shape
    out = np.zeros((len(OFFSETS), hc, wc), np.float32)
    for k, (dy, dx) in enumerate(OFFSETS):
        same = cell_ids[:hc - dy, :wc - dx] == cell_ids[dy:, dx:]
        out[k, :hc - dy, :wc - dx] = np.where(same, within, 1 - within)
    return out


def pairs_within(cells: np.ndarray, affinity: np.ndarray):
    """Every pair of all channels inside `cells`: (cell rows, cell columns, u, v, probability), u
    and v indices into the cells in raster order."""
    hc, wc = cells.shape
    index = -np.ones((hc, wc), np.int64)
    ys, xs = np.nonzero(cells)
    index[ys, xs] = np.arange(len(ys))
    us, vs, ws = [], [], []
    for c, (dy, dx) in enumerate(OFFSETS):
        yy, xx = np.nonzero(cells[:hc - dy, :wc - dx] & cells[dy:, dx:])
        us.append(index[yy, xx])
        vs.append(index[yy + dy, xx + dx])
        ws.append(affinity[c, yy, xx].astype(np.float64))
    return ys, xs, np.concatenate(us), np.concatenate(vs), np.concatenate(ws)


def average_linkage(cells: np.ndarray, affinity: np.ndarray, threshold: float):
    """Clusters of `cells` merged two at a time, the pair with the largest mean probability over the
    pairs between them first, while that mean is over `threshold`: ((hc, wc) ids, -1 off `cells`,
    and every pair as (u, v, probability) for merge_small)."""
    ys, xs, u, v, w = pairs_within(cells, affinity)
    links = [dict() for _ in range(len(ys))]  # cluster -> {neighbour: [sum, count]}, one list per link
    for a, b, x in zip(u.tolist(), v.tolist(), w.tolist()):
        link = links[a].get(b)
        if link is None:
            link = links[a][b] = links[b][a] = [0.0, 0]
        link[0] += x
        link[1] += 1
    parent = list(range(len(ys)))
    heap = [(-s / n, a, b) for a in range(len(ys)) for b, (s, n) in links[a].items() if a < b]
    heapq.heapify(heap)
    while heap:
        mean, a, b = heapq.heappop(heap)
        if -mean <= threshold:
            break
        link = links[a].get(b)
        if link is None or link[0] / link[1] != -mean:  # merged away, or a stale mean
            continue
        if len(links[a]) < len(links[b]):
            a, b = b, a
        del links[a][b], links[b][a]
        for c, theirs in links[b].items():
            del links[c][b]
            ours = links[a].get(c)
            if ours is None:
                ours = links[a][c] = links[c][a] = theirs
            else:
                ours[0] += theirs[0]
                ours[1] += theirs[1]
            heapq.heappush(heap, (-ours[0] / ours[1], min(a, c), max(a, c)))
        links[b] = {}
        parent[b] = a

    def root(x):
        while parent[x] != x:
            x = parent[x]
        return x
    clusters = -np.ones(cells.shape, np.int32)
    clusters[ys, xs] = first_seen([root(i) for i in range(len(ys))])
    return clusters, (u, v, w)


def split_rates(items, label_maps_) -> str:
    """The composites' split rate over all pairs and per relation, as a table row's cells."""
    counts = {}
    for (e, gt, pairs), m in zip(items, label_maps_):
        r = score_image(gt, m, pairs)
        c = counts.setdefault(e["stratum"]["relation"], [0, 0])
        c[0] += r["pairs"]
        c[1] += r["split"]
    rel = {k: s / n for k, (n, s) in counts.items() if n}
    total = sum(s for _, s in counts.values()) / sum(n for n, _ in counts.values())
    return f"{total:.3f} | {rel.get('touch', float('nan')):.3f} | {rel.get('overlap', float('nan')):.3f}"


def roc_auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(a positive scores above a negative), a tie counting half (Mann-Whitney)."""
    values, index = np.unique(np.concatenate([positive, negative]), return_inverse=True)
    pos = np.bincount(index[:len(positive)], minlength=len(values))
    neg = np.bincount(index[len(positive):], minlength=len(values))
    below = np.cumsum(neg) - neg
    return float((pos * (below + 0.5 * neg)).sum() / (len(positive) * len(negative)))


def pair_values(ids: np.ndarray, affinity: np.ndarray, k: int):
    """Channel k's probabilities of the cell pairs with both cells on an object of `ids` (hc, wc):
    (pairs within one object, pairs across two)."""
    dy, dx = OFFSETS[k]
    hc, wc = ids.shape
    p, q, v = ids[:hc - dy, :wc - dx], ids[dy:, dx:], affinity[k, :hc - dy, :wc - dx]
    on = (p > 0) & (q > 0)
    return v[on & (p == q)], v[on & (p != q)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", default=str(SHIPPED_WEIGHTS), help="affinity_split.py's --checkpoint")
    ap.add_argument("--out", help="where the maps are cached (default .work/affinity/NAME, as affinity_split.py)")
    ap.add_argument("--thresholds", default="0.2,0.3,0.4",
                    help="`average`'s merge thresholds for the branch's cues (the ground truth's: 0.5), comma-separated")
    ap.add_argument("--branch-piece", type=float, default=0.02,
                    help="`average`'s smallest piece for the branch's cues, a share of the cell grid")
    ap.add_argument("--size", type=int, default=256)
    a = ap.parse_args()
    name = Path(a.checkpoint).parent.name + "-" + Path(a.checkpoint).stem
    a.out = a.out or str(WORK / "affinity" / name)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    tune_set = read_set(WORK / "tune")
    photos = [cv2.imread(str(WORK / "tune" / e["files"]["image"]), cv2.IMREAD_COLOR)[..., ::-1] for e, _, _ in tune_set]
    raw = maps(SimpleNamespace(out=a.out, checkpoint=a.checkpoint, size=a.size), "tune", photos)
    keep = [j for j, (e, _, pairs) in enumerate(tune_set) if e["stratum"]["objects"] != "photo" and pairs]
    items = [tune_set[j] for j in keep]
    raw = {k: v[keep] for k, v in raw.items()}
    size = raw["fg"].shape[1:]
    heads = label_maps(raw, [gt.shape for _, gt, _ in items], SHIPPED, ("heads",))["heads"]
    truth = [truth_affinity(gt[np.ix_(*cell_positions(gt.shape, raw["affinity"].shape[2:], size))]) for _, gt, _ in items]
    branch = [raw["affinity"][j].astype(np.float32) for j in range(len(items))]
    bias = SHIPPED_SPLIT[0]

    def average(threshold, piece, whole=False):
        def split(labels, cues):
            labels = (labels > 0).astype(labels.dtype) if whole else labels
            return split_instances(labels, cues, size, piece, lambda c, x: average_linkage(c, x, threshold))
        return split
    shipped = {"shipped": lambda m, x: affinity_split(m, x, size, bias, SHIPPED_SPLIT[1]),
               "small": lambda m, x: affinity_split(m, x, size, bias, SMALL_PIECE)}
    runs = [(g, cue, cues, split) for g, split in shipped.items() for cue, cues in (("truth", truth), ("branch", branch))]
    for whole in (False, True):
        g = "average" + (", whole foreground" if whole else "")
        runs.append((f"{g} (0.5, {SMALL_PIECE})", "truth", truth, average(0.5, SMALL_PIECE, whole)))
        runs += [(f"{g} ({t}, {a.branch_piece})", "branch", branch, average(float(t), a.branch_piece, whole))
                 for t in a.thresholds.split(",")]
    print(f"{len(items)} composites of the tuning set, {a.checkpoint}\n\n| grouping | cues | split | touching | overlapping |"
          "\n|---|---|---|---|---|")
    for g, cue, cues, split in runs:
        print(f"| {g} | {cue} | {split_rates(items, [split(m, x) for m, x in zip(heads, cues)])} |", flush=True)
    print("\n| relation | " + " | ".join(f"({dy}, {dx})" for dy, dx in OFFSETS) + " |\n" + "|---" * (len(OFFSETS) + 1) + "|")
    for rel in ("touch", "overlap"):
        aucs = []
        for k in range(len(OFFSETS)):
            same, other = [], []
            for (e, gt, _), x in zip(items, branch):
                if e["stratum"]["relation"] != rel:
                    continue
                within, across = pair_values(gt[np.ix_(*cell_positions(gt.shape, x.shape[1:], size))], x, k)
                same.append(within)
                other.append(across)
            aucs.append(roc_auc(np.concatenate(same), np.concatenate(other)))
        print(f"| {rel} | " + " | ".join(f"{x:.3f}" for x in aucs) + " |")


if __name__ == "__main__":
    main()
