"""Two label-map methods compared image by image: the instance eval set's PQ and split
rate with bootstrap standard errors over its images, and the over-split on val500's single-object
photos, paired photo by photo. For a shipping gate such as `lift --instances-by model` with new
heads against the shipped ones, each run's folders as `eval_instances.py --baselines --by-model`
leaves them (Tools/instances/.work/lift/eval-by-model, real-duts-by-model, real-ecssd-by-model),
copied aside between the runs:

  .venv/bin/python -m liftpy.instances.paired_labels --base OLD --other NEW

where OLD and NEW each hold eval-by-model/labels, real-duts-by-model/labels and
real-ecssd-by-model/labels (`--folder` names other ones). The bootstrap draws the set's images with
replacement (1,000 draws, seed 0) and recomputes both methods' pooled figures on each draw.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from liftpy.instances.eval_instances import (WORK, find_pred, oversplit_flags, paired_oversplit, read_set,
                                             real_photos)
from liftpy.instances.metrics import score_image


def pooled(records, idx):
    """(PQ, split rate) pooled over `records[idx]` as metrics.summarise pools them."""
    tp, fp, fn, iou, split, pairs = (np.array([r[k] for r in records], float)[idx].sum()
                                     for k in ("tp", "fp", "fn", "iou_sum", "split", "pairs"))
    return iou / (tp + fp / 2 + fn / 2), split / pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="folder of the method compared against")
    ap.add_argument("--other", required=True, help="folder of the method compared")
    ap.add_argument("--folder", default="{}-by-model", help="sub-folder pattern, {} the set (eval, real-duts, real-ecssd)")
    ap.add_argument("--set", default=str(WORK / "eval"))
    ap.add_argument("--draws", type=int, default=1000)
    a = ap.parse_args()
    items = read_set(Path(a.set))
    labels = {m: Path(getattr(a, m)) for m in ("base", "other")}
    records = {m: [score_image(gt, find_pred(d / a.folder.format("eval") / "labels", e["name"]), pairs)
                   for e, gt, pairs in items] for m, d in labels.items()}
    everything = np.arange(len(items))
    figures = {m: pooled(r, everything) for m, r in records.items()}
    rng = np.random.default_rng(0)
    draws = np.array([np.subtract(pooled(records["other"], i), pooled(records["base"], i))
                      for i in (rng.integers(0, len(items), len(items)) for _ in range(a.draws))])
    se = draws.std(axis=0, ddof=1)
    print(f"eval set ({len(items)} images): PQ {figures['base'][0]:.3f} -> {figures['other'][0]:.3f} "
          f"({figures['other'][0] - figures['base'][0]:+.3f} ± {se[0]:.3f}); split {figures['base'][1]:.3f} -> "
          f"{figures['other'][1]:.3f} ({figures['other'][1] - figures['base'][1]:+.3f} ± {se[1]:.3f})")
    flags = {m: {} for m in labels}
    for s in ("duts", "ecssd"):
        photos = real_photos(s)
        for m, d in labels.items():
            folder = d / a.folder.format(f"real-{s}") / "labels"
            flags[m][s] = oversplit_flags(photos, lambda key: find_pred(folder, key))
    for s, p in paired_oversplit(flags, "base", "other").items():
        rate = {m: np.mean([f[0] for f in flags[m][s]]) for m in labels}
        print(f"over-split {s}: {rate['base']:.3f} -> {rate['other']:.3f} ({p['difference'] * 100:+.2f} ± {p['se'] * 100:.2f} "
              f"points; {p['only_other']} photos split only by the other, {p['only_base']} only by the base)")


if __name__ == "__main__":
    main()
