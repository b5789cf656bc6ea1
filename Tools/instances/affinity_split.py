"""A grouping step on top of group.py for heads with an affinity branch
(the trainer's `affinity_head`): each instance of group.py's label map is split again into the
clusters of a mutex watershed (Wolf et al. 2018) over the branch's cell-pair probabilities, so an
object that got no centre peak of its own can still come apart. Lift's Swift form is
`Sources/LiftMask/AffinitySplit.swift`, shipped since Lift 2.7.0 with the shipped branch at
SHIPPED_SPLIT (the `affinity_split` of Tools/conversion/subject_recipe.json's grouping, which the heads'
file carries for Lift); make_group_fixtures.py checks that both give the same label maps.

  .venv/bin/python -m liftpy.instances.affinity_split --checkpoint RUN/last.pt --tune      # the grid, tuning set only
  .venv/bin/python -m liftpy.instances.affinity_split --checkpoint RUN/last.pt --bias 0.4 --min-piece 0.02   # eval set + val500 photos
  .venv/bin/python -m liftpy.instances.affinity_split --checkpoint RUN/last.pt --cups --bias 0.4 --min-piece 0.02
  .venv/bin/python -m liftpy.instances.affinity_split --checkpoint RUN/last.pt --save-branch FILE.safetensors
  .venv/bin/python -m liftpy.instances.affinity_split --checkpoint Weights/subject.safetensors --cups --bias 0.7 --min-piece 0.03

--save-branch keeps a run's affinity branch (its EMA: `instance.affinity_trunk.*` and
`instance.branches.affinity.*`, BatchNorms unfolded) with the run's args and commit; such a file
is a --checkpoint too, the branch beside the heads of Weights/subject.safetensors (what an
`affinity_only` run trains beside), so a candidate outlives its ignored checkpoint folder.

The mutex watershed on one instance's cells (a cell is in the instance when the photo pixel at its
model position is): 1-cell pairs are attractive with weight a (the branch's same-instance
probability), the longer pairs repulsive with weight 1 - a - bias; in decreasing weight an
attractive pair joins two clusters unless a repulsive pair already holds between them, a repulsive
one records that it does. Clusters (numbered by their first cell in raster order) under
`min_piece` of the cell grid join the neighbour they attract most (the smallest first, the lower
number on ties). Every photo pixel of the instance takes the cluster whose indicator on the cell
grid, resized bilinearly to the photo (cv2.resize INTER_LINEAR), is largest there (the lower number
on ties), so that seams run smoothly between cell centres rather than along the cells' edges;
where every indicator is 0, the cluster of the nearest of the 8 cells around the pixel's own
(pixel x in cell floor((x + 0.5) * wc / W)) that has one (by the distance from the pixel to the
cells' centres, in cells; ties in raster order), else the instance's largest cluster. Every step
has a deterministic order, so a Swift port can give the same label maps.
The maps are predict.py's (`infer`, mirror averaged), kept under --out as raw-*.npz; the grouping
before the split is group.SHIPPED, the judgement predict.py --tune's (`tuning_figures`).
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from liftpy.instances import real_review
from liftpy.instances.eval_instances import read_set, real_photos
from liftpy.instances.group import SHIPPED, SHIPPED_GROUPING, ordered
from liftpy.instances.predict import WORK, infer, label_maps, load_model, tune_photos, tuning_figures, write_labels
from liftpy.model_files import load_exported
from liftpy.subject_model import InstanceHeads, net_for

HERE = Path(__file__).resolve().parent

SHIPPED_WEIGHTS = HERE.parents[1] / "Weights/subject.safetensors"
BRANCH_KEYS = tuple("instance." + k for k in InstanceHeads.AFFINITY_PARTS)

OFFSETS = InstanceHeads.AFFINITY_OFFSETS
SHIPPED_SPLIT = (SHIPPED_GROUPING["affinity_split"]["bias"], SHIPPED_GROUPING["affinity_split"]["minimum_piece"])  # (bias, min piece): the shipped branch's tuning pick
# (bias, min piece) settings of --tune: biases to 0.9, since picks at 0.8 sat at the grid's edge
TUNE_GRID = [(None, 0.01)] + [(b / 10, m) for b in range(10) for m in (0.01, 0.02, 0.03)]


def _root(parent: list, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def mutex_watershed(cells: np.ndarray, affinity: np.ndarray, bias: float):
    """Clusters of the True cells of `cells` (hc, wc) from `affinity` (len(OFFSETS), hc, wc)
    probabilities: (hc, wc) int32 cluster ids 0.. (-1 outside) and the attractive pairs (u, v, a)
    as cell indices into the instance's cells (raster order) with their probabilities."""
    hc, wc = cells.shape
    index = -np.ones((hc, wc), np.int64)
    ys, xs = np.nonzero(cells)
    index[ys, xs] = np.arange(len(ys))
    us, vs, ws, repulsive = [], [], [], []
    for c, (dy, dx) in enumerate(OFFSETS):
        yy, xx = np.nonzero(cells[:hc - dy, :wc - dx] & cells[dy:, dx:])
        a = affinity[c, yy, xx]
        long = max(dy, dx) > 1
        us.append(index[yy, xx])
        vs.append(index[yy + dy, xx + dx])
        ws.append(1 - a - bias if long else a)
        repulsive.append(np.full(len(yy), long))
    u, v, w, rep = (np.concatenate(x) for x in (us, vs, ws, repulsive))
    parent = list(range(len(ys)))
    mutex = [set() for _ in range(len(ys))]
    for e in np.argsort(-w, kind="stable").tolist():
        if w[e] <= 0:
            break
        a, b = _root(parent, int(u[e])), _root(parent, int(v[e]))
        if a == b:
            continue
        if rep[e]:
            mutex[a].add(b)
            mutex[b].add(a)
        elif b not in mutex[a]:
            if len(mutex[a]) < len(mutex[b]):
                a, b = b, a
            parent[b] = a
            for m in mutex[b]:
                mutex[m].discard(b)
                mutex[m].add(a)
            mutex[a] |= mutex[b]
            mutex[b] = set()
    clusters = -np.ones((hc, wc), np.int32)
    clusters[ys, xs] = first_seen([_root(parent, i) for i in range(len(ys))])
    return clusters, (u[~rep], v[~rep], w[~rep])


def first_seen(values) -> np.ndarray:
    """`values` renumbered 0.. in the order each first appears."""
    _, first, inverse = np.unique(np.asarray(values), return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int32)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first), dtype=np.int32)
    return rank[inverse]


def merge_small(clusters: np.ndarray, attractive, min_cells: int) -> np.ndarray:
    """`clusters` with those under `min_cells` cells joined, the smallest first, to the cluster they
    share the most attraction with (the largest other one when they share none, or only pairs of
    weight 0); renumbered 0.."""
    u, v, w = attractive
    ys, xs = np.nonzero(clusters >= 0)
    lab = clusters[ys, xs].copy()
    while True:
        ids, counts = np.unique(lab, return_counts=True)
        if len(ids) <= 1 or counts.min() >= min_cells:
            break
        s = ids[np.argmin(counts)]
        lu, lv = lab[u], lab[v]
        across = (lu == s) != (lv == s)
        pull = np.zeros(1)
        if across.any():
            other = np.where(lu[across] == s, lv[across], lu[across])
            pull = np.bincount(other, weights=w[across], minlength=lab.max() + 1)
        if pull.max() > 0:
            target = int(np.argmax(pull))
        else:
            target = int(ids[ids != s][np.argmax(counts[ids != s])])
        lab[lab == s] = target
    out = -np.ones_like(clusters)
    out[ys, xs] = first_seen(lab)
    return out


def affinity_split(labels: np.ndarray, affinity: np.ndarray, model_size, bias: float, min_piece: float,
                   stride: int = 4) -> np.ndarray:
    """group.py's (H, W) label map with each instance split into its clusters (module docstring);
    `affinity` (len(OFFSETS), hc, wc) on the heads' cell grid of the (h, w) `model_size` frame.
    Returns the label map ordered as group.ordered numbers instances."""
    return split_instances(labels, affinity, model_size, min_piece, lambda c, a: mutex_watershed(c, a, bias), stride)


def cell_positions(shape, cells, model_size, stride: int = 4):
    """The photo rows and columns (two int arrays) of the (hc, wc) `cells` of the (h, w)
    `model_size` frame on a photo of `shape` (H, W): each cell's model-pixel centre, stretched."""
    (H, W), (hc, wc), (h, w) = shape, cells, model_size
    py = np.clip(np.round((np.arange(hc) * stride + (stride - 1) / 2 + 0.5) * H / h - 0.5).astype(int), 0, H - 1)
    px = np.clip(np.round((np.arange(wc) * stride + (stride - 1) / 2 + 0.5) * W / w - 0.5).astype(int), 0, W - 1)
    return py, px


def split_instances(labels: np.ndarray, affinity: np.ndarray, model_size, min_piece: float, cluster,
                    stride: int = 4) -> np.ndarray:
    """`labels` with each instance split by `cluster(cells, affinity)` -> ((hc, wc) cluster ids,
    the attractive pairs (u, v, w)), pieces under `min_piece` of the grid merged (merge_small) and
    pixels assigned by pixel_clusters; affinity_split's steps around its clustering."""
    hc, wc = affinity.shape[1:]
    cell_labels = labels[np.ix_(*cell_positions(labels.shape, (hc, wc), model_size, stride))]
    out = labels.copy()
    next_label = int(labels.max()) + 1
    min_cells = max(1, int(round(min_piece * hc * wc)))
    for label in range(1, int(labels.max()) + 1):
        cells = cell_labels == label
        if cells.sum() < 2 * min_cells:
            continue
        clusters = merge_small(*cluster(cells, affinity), min_cells)
        if clusters.max() < 1:
            continue
        region = labels == label
        up = pixel_clusters(clusters, region)
        for c in range(1, int(clusters.max()) + 1):
            out[region & (up == c)] = next_label
            next_label += 1
    return ordered(out, next_label - 1)


def pixel_clusters(clusters: np.ndarray, region: np.ndarray) -> np.ndarray:
    """(H, W) cluster of each pixel of `region` (module docstring's rule; -1 elsewhere) from the
    (hc, wc) `clusters` (-1 off the instance)."""
    H, W = region.shape
    hc, wc = clusters.shape
    ys, xs = np.nonzero(region)
    # Each cluster's indicator on the cell grid, bilinear at the pixels (cv2.resize's INTER_LINEAR,
    # half-pixel centres): the largest wins (the first on a tie), so seams run between cell centres.
    share = np.stack([cv2.resize((clusters == c).astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)[ys, xs]
                      for c in range(int(clusters.max()) + 1)])
    got = np.where(share.max(0) > 0, share.argmax(0), -1).astype(np.int32)
    fy, fx = (ys + 0.5) * hc / H, (xs + 0.5) * wc / W  # positions in cells
    cy, cx = np.minimum(fy.astype(int), hc - 1), np.minimum(fx.astype(int), wc - 1)
    need = got < 0
    best_d, best_c = np.full(len(ys), np.inf), np.full(len(ys), -1, np.int32)
    for dy, dx in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)):  # raster order
        ny, nx = cy + dy, cx + dx
        inside = (ny >= 0) & (ny < hc) & (nx >= 0) & (nx < wc)
        c = np.where(inside, clusters[np.clip(ny, 0, hc - 1), np.clip(nx, 0, wc - 1)], -1)
        d = (fy - (ny + 0.5)) ** 2 + (fx - (nx + 0.5)) ** 2
        better = need & (c >= 0) & (d < best_d)  # strictly nearer: a tie keeps the earlier
        best_d, best_c = np.where(better, d, best_d), np.where(better, c, best_c)
    got = np.where(need, best_c, got)
    largest = int(np.argmax(np.bincount(clusters[clusters >= 0])))
    out = -np.ones((H, W), np.int32)
    out[ys, xs] = np.where(got < 0, largest, got)
    return out


def split_all(raw, sizes, bias, min_piece):
    """group.SHIPPED's label maps of `raw` (predict.infer's maps), split again unless `bias` is None."""
    heads = label_maps(raw, sizes, SHIPPED, ("heads",))["heads"]
    if bias is None:
        return heads
    return [affinity_split(m, raw["affinity"][j].astype(np.float32), raw["fg"].shape[1:], bias, min_piece)
            for j, m in enumerate(heads)]


def save_branch(checkpoint, path):
    """Writes the EMA affinity branch of a train_subject.py checkpoint to `path` (module docstring)."""
    import torch
    from safetensors.torch import save_file
    ckpt = torch.load(checkpoint, map_location="cpu", weights_only=False)
    branch = {k: v.contiguous() for k, v in ckpt["ema"].items() if k.startswith(BRANCH_KEYS)}
    if not branch:
        sys.exit(f"{checkpoint} has no affinity branch")
    save_file(branch, str(path), metadata={"args": json.dumps(ckpt["args"]), "commit": str(ckpt.get("commit")),
                                           "step": str(ckpt["step"]), "checkpoint": str(checkpoint)})
    print(f"{path}: {len(branch)} tensors, {sum(v.numel() for v in branch.values())} values")


def load(checkpoint):
    """A SubjectNet in eval mode: a train_subject.py checkpoint's EMA, an exported Lift subject file
    whose heads have the branch (Weights/subject.safetensors since Lift 2.7.0), or a --save-branch
    file's branch beside Weights/subject.safetensors' network and heads."""
    if not str(checkpoint).endswith(".safetensors"):
        return load_model(checkpoint, "ema")[0]
    from safetensors import safe_open
    from safetensors.torch import load_file
    with safe_open(str(checkpoint), "pt") as f:
        exported = "lift.graph" in (f.metadata() or {})
    if exported:
        return load_exported(checkpoint).eval()
    branch = load_file(str(checkpoint))
    base = load_exported(SHIPPED_WEIGHTS).state_dict()
    model = net_for({**base, **branch})
    model.load_state_dict({**base, **branch})  # strict: every tensor of the network is one of the two
    return model.eval()


def maps(a, tag, photos):
    """predict.infer's maps of `photos`, kept as --out/raw-TAG.npz and read from there again."""
    path = Path(a.out) / f"raw-{tag}.npz"
    if not path.exists():
        np.savez(path, **infer(load(a.checkpoint), photos, a.size, True))
    z = np.load(path)
    return {k: z[k] for k in z.files}


def tune(a):
    """The grid (TUNE_GRID) on the tuning set, judged as predict.py --tune judges."""
    items = read_set(WORK / "tune")
    photos = [cv2.imread(str(WORK / "tune" / e["files"]["image"]), cv2.IMREAD_COLOR)[..., ::-1] for e, _, _ in items]
    names, sizes = [e["name"] for e, _, _ in items], [p.shape[:2] for p in photos]
    raw = maps(a, "tune", photos)
    more = tune_photos(400, items)
    more_raw, more_sizes = maps(a, "tune-photos", [p for _, p, _ in more]), [p.shape[:2] for _, p, _ in more]
    review = real_review.load(real_review.EXTRA_REVIEW)
    cc = tuning_figures(items, names, label_maps(raw, sizes, SHIPPED, ("cc",))["cc"], more,
                        label_maps(more_raw, more_sizes, SHIPPED, ("cc",))["cc"], review)
    bound = cc[2] + 0.02
    margin = bound - math.sqrt(bound * (1 - bound) / cc[4])
    print(f"connected components: PQ {cc[0]['pq']:.3f}, composites' split {cc[1]['split']:.3f}, over-split "
          f"{cc[2]:.3f} of {cc[4]} photos; bound {bound:.3f}, a standard error inside it {margin:.3f}")
    print("| bias | min piece | PQ | split | touching | overlapping | over-split | several-object split |\n|" + "---|" * 8)
    rows = []
    for bias, min_piece in TUNE_GRID:
        al, comp, over, several, _, rel = tuning_figures(items, names, split_all(raw, sizes, bias, min_piece), more,
                                                         split_all(more_raw, more_sizes, bias, min_piece), review)
        rows.append((al["pq"], over, bias, min_piece))
        print(f"| {'none' if bias is None else bias} | {'' if bias is None else min_piece} | {al['pq']:.3f} | "
              f"{comp['split']:.3f} | {rel['touch']:.3f} | {rel['overlap']:.3f} | {over:.3f} | {several:.3f} |", flush=True)
    pq, over, bias, min_piece = max((r for r in rows if r[1] <= margin), key=lambda r: r[0])
    print(f"the pick (best PQ a standard error inside the bound): bias {bias}, min piece {min_piece}: PQ {pq:.3f}, "
          f"over-split {over:.3f}")


def evaluate(a):
    """The eval set and val500's real single-object photos at --bias / --min-piece, scored by eval_instances.py."""
    items = read_set(WORK / "eval")
    photos = [cv2.imread(str(WORK / "eval" / e["files"]["image"]), cv2.IMREAD_COLOR)[..., ::-1] for e, _, _ in items]
    folder = Path(a.out) / f"bias{a.bias}-piece{a.min_piece}"
    write_labels(folder / "set", [e["name"] for e, _, _ in items],
                 split_all(maps(a, "eval", photos), [p.shape[:2] for p in photos], a.bias, a.min_piece))
    for s in ("duts", "ecssd"):
        real = real_photos(s)
        write_labels(folder / "real" / s, [k for k, _, _ in real],
                     split_all(maps(a, f"real-{s}", [p for _, p, _ in real]), [p.shape[:2] for _, p, _ in real],
                               a.bias, a.min_piece))
    subprocess.run([sys.executable, "-m", "liftpy.instances.eval_instances", "--set", str(WORK / "eval"), "--pred",
                    str(folder / "set"), "--pred-real", str(folder / "real"), "--name", folder.name,
                    "--json", str(folder / "scores.json")], check=True)


def cups(a):
    """Subjects on Tests/Fixtures/examples/three-cups.jpg at --bias / --min-piece."""
    photo = cv2.imread(str(HERE.parents[1] / "Tests/Fixtures/examples/three-cups.jpg"), cv2.IMREAD_COLOR)[..., ::-1]
    labels = split_all(infer(load(a.checkpoint), [photo], a.size, True), [photo.shape[:2]], a.bias, a.min_piece)[0]
    areas = np.bincount(labels.ravel())[1:]
    print(f"three cups: {len(areas)} subjects, areas {areas.tolist()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True, help="a trainer checkpoint with `affinity_head` (its EMA)")
    ap.add_argument("--out", help="where the maps and label maps go (default .work/affinity/NAME)")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tune", action="store_true", help="the grid on the tuning set")
    ap.add_argument("--cups", action="store_true", help="the three cups only")
    ap.add_argument("--bias", type=lambda v: None if v == "none" else float(v), default=SHIPPED_SPLIT[0],
                    help="the repulsive pairs' bias ('none': group.SHIPPED alone; default: Lift's)")
    ap.add_argument("--min-piece", type=float, default=SHIPPED_SPLIT[1],
                    help="smallest cluster, a share of the cell grid (default: Lift's)")
    ap.add_argument("--save-branch", metavar="FILE", help="write the checkpoint's affinity branch to FILE and stop")
    a = ap.parse_args()
    if a.save_branch:
        return save_branch(a.checkpoint, a.save_branch)
    import torch
    torch.set_num_threads(a.threads)
    cv2.setNumThreads(1)
    ckpt = Path(a.checkpoint)
    a.out = a.out or str(WORK / "affinity" / f"{ckpt.parent.name}-{ckpt.stem}")
    Path(a.out).mkdir(parents=True, exist_ok=True)
    tune(a) if a.tune else cups(a) if a.cups else evaluate(a)


if __name__ == "__main__":
    main()
