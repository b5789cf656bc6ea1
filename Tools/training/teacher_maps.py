"""Writes a teacher's soft maps for the training splits, for distillation (the trainer's `distill`).

The teacher is what `lift --quality accurate` combines before its edge refinement, run by the shipped
`lift` binary on every training photo at the photo's own (256-px shard) size: the subject model's
`balanced` map (photo and mirror image) and U²-Net-small's map (one plain pass, `--quality fast`),
both unrefined (`--no-refine`), combined as `MapCombination.swift` does: clamp(a + b - 0.5, 0, 1).
`accurate` beats `balanced` most on ECSSD (docs/models/subject.md), which is what a student should learn.

Output: Tools/.cache/duts/teacher-SPLIT.npz (ignored by git), `keys` and one flat uint8 `mask`
array in the split's own order and offsets (duts_data.Split), checked against the split on load.

    .venv/bin/python -m liftpy.training.teacher_maps --lift .build/release/lift --splits train,extra
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from liftpy.duts_data import CACHE_DIR, load_split, save_npz

# The two `lift` runs: the subject model's unrefined balanced map, U²-Net-small's one plain pass.
TEACHER_RUNS = {"subject": ["--no-refine"], "u2netp": ["-m", "u2netp", "--quality", "fast", "--no-refine"]}


def teacher_path(split_name: str) -> Path:
    return CACHE_DIR / f"teacher-{split_name}.npz"


def run_lift(binary: str, photos: Path, masks: Path, args: list[str], threads: int):
    masks.mkdir()
    cutouts = masks.parent / (masks.name + "-cutouts")
    subprocess.run([binary, str(photos), "-o", str(cutouts), "--mask", str(masks), "--png-level", "0",
                    "-j", str(threads), "-q"] + args, check=True)


def write_teacher(binary: str, split_name: str, threads: int):
    split = load_split(split_name)
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        photos = tmp / "photos"
        photos.mkdir()
        for k, key in enumerate(split.keys):
            cv2.imwrite(str(photos / f"{key}.png"), split.pair(k)[0][..., ::-1])
        for name, args in TEACHER_RUNS.items():
            run_lift(binary, photos, tmp / name, args, threads)
            print(f"{split_name}: {name} maps for {len(split)} photos, {time.time() - start:.0f} s", flush=True)
        flat = np.empty_like(split.flat_mask)
        for k, key in enumerate(split.keys):
            h, w = (int(v) for v in split.shapes[k])
            a, b = (cv2.imread(str(tmp / n / f"{key}.mask.png"), cv2.IMREAD_GRAYSCALE) for n in TEACHER_RUNS)
            if a is None or b is None or a.shape != (h, w) or b.shape != (h, w):
                sys.exit(f"{split_name}/{key}: a teacher map is missing or not {w}x{h}")
            combined = np.clip(a.astype(np.int16) + b.astype(np.int16) - 128, 0, 255)  # clamp(a + b - 0.5)
            flat[int(split.offsets[k]):int(split.offsets[k + 1])] = combined.reshape(-1)
    out = teacher_path(split_name)
    save_npz(out, keys=np.array(split.keys), mask=flat)
    print(f"{split_name}: wrote {out} in {time.time() - start:.0f} s", flush=True)


def load_teacher(split_name: str, split) -> np.ndarray:
    """The teacher's flat uint8 maps for `split` (same keys and order), as written above."""
    z = np.load(teacher_path(split_name), allow_pickle=False)
    if list(z["keys"]) != list(split.keys) or z["mask"].shape != split.flat_mask.shape:
        sys.exit(f"{teacher_path(split_name)} does not match split {split_name}: write it again")
    return z["mask"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lift", required=True, help="the lift binary (release build)")
    ap.add_argument("--splits", default="train,extra")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    for name in a.splits.split(","):
        write_teacher(a.lift, name, a.threads)


if __name__ == "__main__":
    main()
