"""Fits group.py's split check (step 4 of its docstring) for a checkpoint's instance heads: a
logistic regression that says, for two bordering pieces of one component, whether they are two
objects, from three numbers: the weaker peak's score, the mean predicted boundary on their border
and how far apart their peaks are for the component's size (group.split_features); with --support
a fourth, the smaller of the two peaks' supports (the support test weighed instead of thresholded:
give --min-support 0 so that the candidates keep the peaks the test would drop).

  .venv/bin/python -m liftpy.instances.fit_split_check --checkpoint RUN/last.pt            # ~3 min
  .venv/bin/python -m liftpy.instances.fit_split_check --checkpoint RUN/last.pt --regroup  # maps kept
  .venv/bin/python -m liftpy.instances.fit_split_check --checkpoint RUN/last.pt --regroup --support --min-support 0

Data: the fit set (make_eval_set.py --set fit, built here if missing): 800 composites from the
DUTS-TE extra pairs and 400 untouched single-object extra photos, none of them the tuning set's or
predict.py --tune's photos, and never val500. The network's maps on it (as predict.py makes them,
mirror pass averaged) go to Tools/instances/.work/pred/NAME/raw-fit.npz. Every two bordering pieces
that group.py's steps 1-3 make at the flags' setting (centre 0.15: lower than any threshold a
setting is likely to use, so that the check sees the spurious peaks it must reject) are one
sample: positive when the two pieces' majority ground-truth instances are two different objects,
negative when they are one object or one is mostly background (every split on an untouched photo
the by-eye review, extra-review.tsv, leaves as one object; the 90 it lists as several objects or
unclear give no samples, `--review none` takes them as before).

The fit: L2-regularised logistic regression (weight 1 on the three weights, none on the bias, as
scikit-learn's default C = 1) by Newton's method on x = (logit s, ln b, ln d[, ln u]). Prints the weights,
the samples and the fit's AUC, writes them to --json (default .work/pred/NAME/split-check.json), and
the flag that hands them to predict.py --tune, which then chooses split_probability (and the other
thresholds) on the tuning set.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from liftpy.instances import real_review
from liftpy.instances.eval_instances import read_set
from liftpy.instances.group import GroupParams, split_candidates
from liftpy.instances.predict import WORK, gather, load_model, prepare_run

HERE = Path(__file__).resolve().parent


def listed(entry, review) -> bool:
    """Is this fit-set image an untouched photo that `review` ({("extra", key): N or None}) lists?"""
    return entry["stratum"]["objects"] == "photo" and ("extra", entry["sources"]["photo"]) in review


def samples(raw, items, params: GroupParams, review=None):
    """(features (n, 4) as group.split_features gives them, labels (n,) 0/1, per-stratum counts).
    Untouched photos that `review` ({("extra", key): N or None}) lists give no samples: their one
    region is several objects, or unclear, so a split of it is not known to be wrong."""
    feats, labels, counts = [], [], {}
    for j, (e, gt, _) in enumerate(items):
        if listed(e, review or {}):
            continue
        H, W = (int(v) for v in raw["sizes"][j])
        piece, cands = split_candidates(*(raw[k][j].astype(np.float32) for k in ("fg", "centre", "offset", "boundary")),
                                        (H, W), params)
        for i, k, f in cands:
            majority = [int(np.bincount(gt[piece == q]).argmax()) for q in (i, k)]
            label = int(majority[0] != majority[1] and min(majority) > 0)
            feats.append(f)
            labels.append(label)
            key = (e["stratum"]["objects"], label)
            counts[key] = counts.get(key, 0) + 1
    return np.array(feats, np.float64).reshape(-1, 4), np.array(labels, np.float64), counts


def design(features, support=False):
    """The regression's inputs: (logit s, ln b, ln d), then ln u with `support`, per sample."""
    s, b, d, u = features.T
    return np.stack([np.log(s / (1 - s)), np.log(b), np.log(d)] + ([np.log(u)] if support else []), axis=1)


def fit_logistic(x, y, l2=1.0, iterations=50):
    """(bias, weights) minimising the log loss plus l2 / 2 * |weights|^2 (bias unpenalised), Newton."""
    a = np.concatenate([np.ones((len(x), 1)), x], axis=1)
    theta = np.zeros(a.shape[1])
    penalty = np.diag([0.0] + [l2] * x.shape[1])
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-a @ theta))
        grad = a.T @ (p - y) + penalty @ theta
        hess = (a * (p * (1 - p))[:, None]).T @ a + penalty
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return float(theta[0]), theta[1:].tolist()


def auc(score, y):
    """Area under the ROC curve (ties count half)."""
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum()
    return float(greater / (len(pos) * len(neg)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True, help="a train_subject.py .pt or an exported .safetensors with heads")
    ap.add_argument("--which", default="ema", choices=("ema", "model"))
    ap.add_argument("--name", help="default: the checkpoint's folder and file, as predict.py names it")
    ap.add_argument("--out", help="default Tools/instances/.work/pred/NAME (predict.py's folder for it)")
    ap.add_argument("--set", default=str(WORK / "fit"))
    ap.add_argument("--regroup", action="store_true", help="reuse raw-fit.npz in --out")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--centre-threshold", type=float, default=0.15)
    ap.add_argument("--min-piece", type=float, default=0.01)
    ap.add_argument("--min-support", type=float, default=0.01)
    ap.add_argument("--support", action="store_true",
                    help="a fifth weight on ln u, the smaller of the two peaks' supports (with --min-support 0)")
    ap.add_argument("--review", default=str(real_review.EXTRA_REVIEW),
                    help="the by-eye review of the fit set's untouched photos: the photos it lists (several "
                         "objects, unclear) give no samples ('none': every split on an untouched photo is wrong, "
                         "as it was before the review)")
    ap.add_argument("--json", help="default OUT/split-check.json")
    a = ap.parse_args()
    prepare_run(a)
    a.mirror = True
    set_dir = Path(a.set)
    if not (set_dir / "manifest.json").exists():
        cmd = [sys.executable, "-m", "liftpy.instances.make_eval_set", "--set", "fit", "--out", str(set_dir)]
        print("building the fit set:", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
    items = read_set(set_dir)
    model = None
    photos = None
    if not a.regroup:
        model, label = load_model(a.checkpoint, a.which)
        if model.instance is None or "boundary" not in model.instance.branches:
            sys.exit(f"{a.checkpoint}: the split check needs instance heads with a boundary head")
        print(f"model: {label}", flush=True)
        photos = [cv2.imread(str(set_dir / e["files"]["image"]), cv2.IMREAD_COLOR)[..., ::-1] for e, _, _ in items]
    raw, _, sizes = gather(model, a, "fit", [e["name"] for e, _, _ in items], photos)
    raw["sizes"] = sizes
    params = GroupParams(centre_threshold=a.centre_threshold, boundary_threshold=None, min_piece=a.min_piece,
                         min_support=a.min_support)
    t = time.time()
    review = {} if a.review == "none" else real_review.load(Path(a.review))
    print(f"{sum(listed(e, review) for e, _, _ in items)} untouched photos left out by the review ({a.review})",
          flush=True)
    f, y, counts = samples(raw, items, params, review)
    if y.sum() == 0 or y.sum() == len(y):
        sys.exit(f"the fit set gave {int(y.sum())} positive and {int(len(y) - y.sum())} negative samples: nothing to fit")
    x = design(f, a.support)
    bias, weights = fit_logistic(x, y)
    score = bias + x @ np.array(weights)
    result = {"checkpoint": a.checkpoint, "which": a.which, "params": {k: v for k, v in vars(params).items()},
              "samples": int(len(y)), "positive": int(y.sum()),
              "by_stratum": {f"{o}/{'two objects' if lab else 'one'}": n for (o, lab), n in sorted(counts.items())},
              "split_check": [bias] + weights, "auc": auc(score, y)}
    print(f"{len(y)} candidate splits ({int(y.sum())} two objects) in {time.time() - t:.0f} s; by stratum "
          f"{result['by_stratum']}")
    print(f"split check (bias, peak, seam, spread{', support' if a.support else ''}): {', '.join(f'{v:.4f}' for v in result['split_check'])}; "
          f"AUC on the fit set {result['auc']:.3f}")
    print("choose its probability on the tuning set: predict.py --checkpoint ... --tune --split-check "
          + ",".join(f"{v:.4f}" for v in result["split_check"]))
    path = Path(a.json or Path(a.out) / "split-check.json")
    path.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
