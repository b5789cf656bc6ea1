#!/usr/bin/env python3
"""Data for `lift-bench mask-quality`: does guided-filter refinement recover edges a low-resolution
model blurs? Takes DUTS-TE validation samples (photo + ground-truth mask, longest side 320 px),
simulates a model's output by shrinking the ground truth to 80×80 (stretched, area-averaged, then
Gaussian blur σ = 0.8 map pixels; with JITTER > 0, plus smooth noise of that standard deviation
so the edge wanders like an imperfect model's), and writes, per sample: KEY.ppm (photo), KEY.pgm (ground truth),
KEY.map (`MAPF W H\\n` + little-endian float32). Lift then upsamples and refines the map to the photo
and compares both with the ground truth.

Usage: .venv/bin/python Benchmarks/mask_quality.py OUT_DIR [COUNT] [JITTER]
       swift run -c release lift-bench mask-quality OUT_DIR
"""
import io
import os
import sys
import tarfile

import cv2
import numpy as np
from PIL import Image

# The DUTS validation shard: in $LIFT_DUTS_DIR when set (as Tools/liftpy/duts_data.py reads it), else
# in ../shared/data/duts beside the checkout.
DUTS_DIR = os.environ.get("LIFT_DUTS_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "duts"))
SHARD = os.path.join(DUTS_DIR, "duts-te-val500-320-000.tar")


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    jitter = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    rng = np.random.default_rng(0)
    os.makedirs(out, exist_ok=True)
    samples = {}
    with tarfile.open(SHARD) as tar:
        for member in tar:
            key, ext = os.path.splitext(member.name)
            samples.setdefault(key, {})[ext] = tar.extractfile(member).read()
    keys = sorted(k for k, v in samples.items() if ".jpg" in v and ".png" in v)[:count]
    for key in keys:
        photo = np.array(Image.open(io.BytesIO(samples[key][".jpg"])).convert("RGB"))
        truth = np.array(Image.open(io.BytesIO(samples[key][".png"])).convert("L"))
        small = cv2.resize(truth.astype(np.float32) / 255, (80, 80), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), 0.8)
        if jitter:
            # An imperfect model: its edge wanders by up to about one map pixel.
            noise = cv2.GaussianBlur(rng.standard_normal((80, 80)).astype(np.float32), (0, 0), 2.0)
            small = np.clip(small + jitter * noise / noise.std(), 0, 1)
        name = os.path.join(out, os.path.basename(key))
        Image.fromarray(photo).save(name + ".ppm")
        Image.fromarray(truth).save(name + ".pgm")
        with open(name + ".map", "wb") as f:
            f.write(b"MAPF 80 80\n")
            f.write(small.astype("<f4").tobytes())
    print(f"wrote {len(keys)} samples to {out}")


if __name__ == "__main__":
    main()
