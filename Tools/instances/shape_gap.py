"""Why the affinity branch's overlap cues lag its touching ones
(docs/decisions/0006-what-the-instance-heads-tried.md). On composites from the training generator
(synth.py, seed 99, the held-out samples' seed; two objects, no untouched photos), area under the
ROC of the branch's same-instance pairs against pairs across the two instances (both cells on an
object), as split_ceiling.py measures it on the tuning set:

  .venv/bin/python -m liftpy.instances.shape_gap --checkpoint RUN/last.pt

1. per object source and relation, each of the six channels: DUTS-TR (what every run trains on),
   the DUTS-TE extra pairs a `synth_extra` run trains on, and those it leaves out
   (predict.tuning_keys, never trained on);
2. overlapping pairs only, all channels pooled, by the mean solidity (sources.solidity: largest
   component / its convex hull) of the two visible regions: the same shapes from either source.
Needs the tuning set (make_eval_set.py --set tune), as tuning_keys does. ~7 min on 2 cores.
"""
from __future__ import annotations

import argparse

import numpy as np

from liftpy.duts_data import Without, load_split
from liftpy.instances.affinity_split import OFFSETS, cell_positions, load
from liftpy.instances.predict import infer, tuning_keys
from liftpy.instances.sources import SourceBank, solidity
from liftpy.instances.split_ceiling import pair_values, roc_auc
from liftpy.instances.synth import SynthInstances

SOLIDITY_BINS = (0.75, 0.88)  # edges of the three bins: below, between, at or above


def composites(model, bank, relation, n):
    """n seeded two-object composites in `relation`: their samples, the branch's (n, 6, hc, wc)
    probabilities (mirror-averaged) and each one's ground-truth ids on the cell grid."""
    ds = SynthInstances(seed=99, size=256, bank=bank, photo_p=0.0, counts=(0, 1, 0, 0), relation_p={relation: 1.0})
    samples = [ds[i] for i in range(n)]
    affinity = infer(model, [s["image"] for s in samples], 256, True)["affinity"].astype(np.float32)
    ids = [s["ids"][np.ix_(*cell_positions(s["ids"].shape, x.shape[1:], s["ids"].shape))]
           for s, x in zip(samples, affinity)]
    return samples, affinity, ids


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True, help="a checkpoint with an affinity branch (affinity_split.py's)")
    ap.add_argument("--count", type=int, default=96, help="composites per source and relation (table 2: twice that)")
    a = ap.parse_args()
    extra, reserved = load_split("extra"), tuning_keys()
    kept = {str(k) for k in extra.keys} - reserved
    banks = {"DUTS-TR": SourceBank(("train",)), "extra, trainable": SourceBank(split=Without(extra, reserved)),
             "extra, the tuning set's": SourceBank(split=Without(extra, kept))}
    model = load(a.checkpoint)
    print(f"{a.checkpoint}\n\n| objects | relation | " + " | ".join(f"({dy}, {dx})" for dy, dx in OFFSETS) + " |\n"
          + "|---" * (len(OFFSETS) + 2) + "|")
    for name, bank in banks.items():
        for relation in ("touch", "overlap"):
            _, affinity, ids = composites(model, bank, relation, a.count)
            aucs = [roc_auc(*(np.concatenate(v) for v in zip(*(pair_values(i, x, k) for i, x in zip(ids, affinity)))))
                    for k in range(len(OFFSETS))]
            print(f"| {name} | {relation} | " + " | ".join(f"{v:.3f}" for v in aucs) + " |", flush=True)
    print("\noverlapping pairs by the two regions' mean solidity: area under the ROC (composites)\n"
          f"| objects | median solidity | < {SOLIDITY_BINS[0]} | {SOLIDITY_BINS[0]}-{SOLIDITY_BINS[1]} | "
          f">= {SOLIDITY_BINS[1]} |\n|---|---|---|---|---|")
    for name in ("DUTS-TR", "extra, the tuning set's"):
        samples, affinity, ids = composites(model, banks[name], "overlap", 2 * a.count)
        shapes = [float(np.mean([solidity(255 * (s["ids"] == i).astype(np.uint8)) for i in (1, 2)])) for s in samples]
        bins = np.searchsorted(SOLIDITY_BINS, shapes, side="right")
        cells = []
        for b in range(3):
            pairs = [pair_values(i, x, k) for i, x, sb in zip(ids, affinity, bins) if sb == b
                     for k in range(len(OFFSETS))]
            cells.append(f"{roc_auc(*(np.concatenate(v) for v in zip(*pairs))):.3f} ({int((bins == b).sum())})"
                         if pairs else "-")
        print(f"| {name} | {np.median(shapes):.2f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
