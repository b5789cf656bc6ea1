"""How often the centre map has a peak where an object's centre is: a check of the heads' maps that
no grouping can make up for (a pair whose objects get one peak between them stays one subject).

For each ground-truth object of the evaluation set: is there a centre peak (group.peaks: a local
maximum of the /4 centre map in the grouping's NMS window, at or above a threshold) within --radius
cells of its centre: the centre of mass of its visible pixels (or, with --centre-target pole, their
innermost pixel, as the trainer's `centre_target = "pole"` teaches it)? Reported by relation
stratum (single, gap, touch, overlap, split) at several thresholds, and for the overlap stratum by
paste order (labels are in paste order: the last object is in front and wholly visible, the first
is behind) and by same / different objects.

Real photos have no object centres, so for them a second table (when RUN/raw-tune-photos.npz, from
predict.py --tune, is there) counts the photos with >= 2 peaks on the foreground (fg >= 0.5 at the
peak's cell), among predict.py --tune's 400 DUTS-TE extra photos by their by-eye verdict
(extra-review.tsv: one object, several objects): the heads cannot split a photo with one peak.

  .venv/bin/python -m liftpy.instances.peak_coverage Tools/instances/.work/pred/RUN-last.pt

Reads RUN/raw-eval.npz (written by predict.py on the eval set) and the set's labels; prints a table.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import torch

from liftpy.instances import real_review
from liftpy.instances.centres import centres_of_mass, poles
from liftpy.instances.eval_instances import read_set
from liftpy.instances.group import SHIPPED, peaks
from liftpy.instances.predict import WORK

HERE = Path(__file__).resolve().parent

THRESHOLDS = (0.1, 0.2, 0.25, 0.3, 0.35)


def object_centres(gt: np.ndarray, cells: tuple[int, int], target: str = "mass") -> dict[int, tuple[float, float]]:
    """{label: (row, column)} of each object's centre in cell units of the /4 map: its visible centre
    of mass, or with `target` "pole" its innermost pixel on the photo stretched to the input
    (centres.poles). The network sees the photo stretched to its input, and cell i stands
    for input pixel 4 i + 1.5 (training_recipe.instance_targets)."""
    H, W = gt.shape
    ch, cw = cells
    if target == "pole":
        ids = cv2.resize(gt.astype(np.int32), (4 * cw, 4 * ch), interpolation=cv2.INTER_NEAREST)
        k = int(gt.max()) + 1
        batch = torch.from_numpy(ids)[None]
        cy, cx = poles(batch, *centres_of_mass(batch, k)[1:])
        present = set(np.unique(ids).tolist()) - {0}
        return {j: ((float(cy[0, j]) - 1.5) / 4, (float(cx[0, j]) - 1.5) / 4) for j in sorted(present)}
    sy, sx = 4 * ch / H, 4 * cw / W  # input pixels per photo pixel
    out = {}
    for k in np.unique(gt).tolist():
        if k == 0:
            continue
        ys, xs = np.nonzero(gt == k)
        out[k] = (((ys.mean() + 0.5) * sy - 0.5 - 1.5) / 4, ((xs.mean() + 0.5) * sx - 0.5 - 1.5) / 4)
    return out


def coverage(run: Path, set_dir: Path, radius: float, nms: int, target: str = "mass"):
    """{group name: (n objects, [share with a peak within radius, per threshold])}."""
    raw = np.load(run / "raw-eval.npz")
    index = {str(n): i for i, n in enumerate(raw["names"])}
    hits: dict[str, list[list[bool]]] = {}
    for e, gt, _ in read_set(set_dir):
        centre = raw["centre"][index[e["name"]]].astype(np.float32)
        found = [peaks(centre, t, nms, 64) for t in THRESHOLDS]
        rel, count = e["stratum"]["relation"], int(gt.max())
        for k, (cy, cx) in object_centres(gt, centre.shape, target).items():
            row = [bool(len(p) and (np.hypot(p[:, 0] - cy, p[:, 1] - cx) <= radius).any()) for p in found]
            groups = [rel]
            if rel == "overlap":
                order = "front" if k == count else "behind" if k == 1 else "middle"
                groups += [f"overlap, {order}", f"overlap, {e['stratum']['objects']} objects"]
            for g in groups:
                hits.setdefault(g, []).append(row)
    return {g: (len(rows), np.mean(rows, axis=0).tolist()) for g, rows in hits.items()}


def real_peaks(run: Path, nms: int):
    """{verdict: (n photos, [share with >= 2 peaks on the foreground, per threshold])} over the
    tuning photos of RUN/raw-tune-photos.npz; `unclear` photos are left out."""
    raw = np.load(run / "raw-tune-photos.npz")
    review = real_review.load(real_review.EXTRA_REVIEW)
    rows: dict[str, list[list[bool]]] = {}
    for i, key in enumerate(raw["names"]):
        verdict = review.get(("extra", str(key)), "one")
        if verdict is None:
            continue
        centre = raw["centre"][i].astype(np.float32)
        on = cv2.resize(raw["fg"][i].astype(np.float32), centre.shape[::-1], interpolation=cv2.INTER_AREA) >= 0.5
        counts = [sum(bool(on[int(p[0]), int(p[1])]) for p in peaks(centre, t, nms, 64)) for t in THRESHOLDS]
        rows.setdefault("one object" if verdict == "one" else "several objects", []).append([c >= 2 for c in counts])
    return {g: (len(r), np.mean(r, axis=0).tolist()) for g, r in rows.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a predict.py output folder with raw-eval.npz")
    ap.add_argument("--set", default=str(WORK / "eval"))
    ap.add_argument("--radius", type=float, default=2.0, help="cells of the /4 map (4 input pixels each)")
    ap.add_argument("--nms", type=int, default=SHIPPED.nms, help="the peak window, as group.py's")
    ap.add_argument("--centre-target", choices=("mass", "pole"), default="mass",
                    help="the centre the heads were taught (the trainer's `centre_target`)")
    a = ap.parse_args()
    table = coverage(Path(a.run), Path(a.set), a.radius, a.nms, a.centre_target)
    print(f"objects with a centre peak within {a.radius:g} cells of their centre ({a.centre_target}): {a.run}")
    print("| objects | n | " + " | ".join(f"peak >= {t:g}" for t in THRESHOLDS) + " |")
    print("|---|---|" + "---|" * len(THRESHOLDS))
    for g in sorted(table, key=lambda g: (g.split(",")[0] != "single", g)):
        n, shares = table[g]
        print(f"| {g} | {n} | " + " | ".join(f"{s:.2f}" for s in shares) + " |")
    if (Path(a.run) / "raw-tune-photos.npz").exists():
        print(f"\nreal tuning photos (extra-review.tsv) with >= 2 centre peaks on the foreground: {a.run}")
        print("| photos | n | " + " | ".join(f"peak >= {t:g}" for t in THRESHOLDS) + " |")
        print("|---|---|" + "---|" * len(THRESHOLDS))
        for g, (n, shares) in sorted(real_peaks(Path(a.run), a.nms).items()):
            print(f"| {g} | {n} | " + " | ".join(f"{s:.2f}" for s in shares) + " |")


if __name__ == "__main__":
    main()
