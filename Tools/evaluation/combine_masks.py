"""Scores ways of combining two models' soft masks (written by `lift --no-refine --mask`, kept with
`eval_subject.py --keep-masks`) on the validation sets, to choose how `lift --quality accurate`
combines Lift's subject model with U²-Net-small before edge refinement.

    .venv/bin/python -m liftpy.evaluation.combine_masks --a RUNS/subject-raw --b RUNS/u2netp-raw --sets duts,ecssd

Each rule maps the two probability maps (0…1, at the ground truth's size) to one; every rule is
scored with MAE, max F and S, and against rule `a` (the first model alone) with paired standard
errors. The rules: each model alone; the mean; weighted means; the mean with its contrast raised
around 0.5 (gain g: 0.5 + g·(mean − 0.5), clamped); the logit (log-odds) mean; the per-pixel more
confident of the two. `--rules` picks some by name.
"""
from __future__ import annotations

import argparse

import numpy as np

from liftpy.duts_data import VAL_SETS, load_split
from liftpy.evaluation.eval_subject import paired_difference, read_masks, set_folder, sod_metrics


def logit(p):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


RULES = {
    "a alone": lambda a, b: a,
    "b alone": lambda a, b: b,
    "mean": lambda a, b: (a + b) / 2,
    "0.65 a + 0.35 b": lambda a, b: 0.65 * a + 0.35 * b,
    "0.35 a + 0.65 b": lambda a, b: 0.35 * a + 0.65 * b,
    "mean gain 1.5": lambda a, b: 0.5 + 1.5 * ((a + b) / 2 - 0.5),
    "mean gain 2": lambda a, b: 0.5 + 2 * ((a + b) / 2 - 0.5),
    "mean gain 3": lambda a, b: 0.5 + 3 * ((a + b) / 2 - 0.5),
    "logit mean": lambda a, b: 1 / (1 + np.exp(-(logit(a) + logit(b)) / 2)),
    "more confident": lambda a, b: np.where(np.abs(a - 0.5) >= np.abs(b - 0.5), a, b),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="masks of the first model (DIR[/SET]/KEY.png)")
    ap.add_argument("--b", required=True, help="masks of the second model")
    ap.add_argument("--sets", default="duts,ecssd")
    ap.add_argument("--rules", help="comma-separated rule names (default: all)")
    args = ap.parse_args()
    sets = args.sets.split(",")
    for set_name in sets:
        split = load_split(VAL_SETS[set_name])
        gts = [split.pair(k)[1] for k in range(len(split))]
        a = [m.astype(np.float32) / 255 for m in read_masks(set_folder(args.a, set_name, len(sets)), split, gts)]
        b = [m.astype(np.float32) / 255 for m in read_masks(set_folder(args.b, set_name, len(sets)), split, gts)]
        alone = [np.round(x * 255).astype(np.uint8) for x in a]
        chosen = args.rules.split(",") if args.rules else list(RULES)
        for name, rule in ((n, RULES[n]) for n in chosen):
            maps = [np.round(np.clip(rule(x, y), 0, 1) * 255).astype(np.uint8) for x, y in zip(a, b)]
            r = sod_metrics(maps, gts)
            if name != "a alone":
                r |= paired_difference(maps, alone, gts, resamples=500)
            print(f"[{set_name}] {name}: " + ", ".join(f"{k} {v:.4f}" for k, v in r.items()), flush=True)


if __name__ == "__main__":
    main()
