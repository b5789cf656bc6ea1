#!/usr/bin/env python3
"""JPEG decode speed: Lift's JPEGDecoder against Pillow (libjpeg-turbo with SIMD), same files, same run.

Usage: .venv/bin/python Benchmarks/jpeg_peer.py [--runs N] [--lift PATH-TO-lift-bench]

Makes a synthetic 12 MP (4000 x 3000) photo-like picture, saves it as baseline 4:2:0 q90 and
progressive 4:2:0 q90 JPEGs under Benchmarks/.work/jpeg-bench/, times Pillow's full decode (open + load +
RGB pixels) and then runs `lift-bench jpeg` on the same files. Throughput is MB/s of decoded RGB
(width x height x 3), from the median wall time; the ratio columns are Lift's speed relative to
Pillow's (Pillow time / Lift time, higher is better for Lift) by wall time and by thread CPU time
(the CPU ratio is steadier when other processes share the machine). It then checks Lift's pixels
against Pillow's on the same 12 MP files.
"""
import argparse
import io
import json
import os
import subprocess
import time

import numpy as np
from PIL import Image


def photo(width, height, seed=0):
    """Gradients, shapes, fine texture and sensor-like noise, so the file compresses like a photo."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    r = 120 + 80 * np.sin(x / 410.0) + 40 * np.cos(y / 230.0)
    g = 110 + 70 * np.cos((x + y) / 530.0)
    b = 100 + 60 * np.sin(y / 170.0) * np.cos(x / 290.0)
    for _ in range(40):
        cx, cy, radius = rng.uniform(0, width), rng.uniform(0, height), rng.uniform(50, 600)
        colour = rng.uniform(0, 255, 3)
        disc = (x - cx) ** 2 + (y - cy) ** 2 < radius ** 2
        r, g, b = (np.where(disc, 0.6 * c + 0.4 * channel, channel) for c, channel in zip(colour, (r, g, b)))
    texture = 18 * np.sin(x / 3.1) * np.sin(y / 2.7)
    rgb = np.stack([r, g, b], axis=-1) + texture[..., None] + rng.normal(0, 5, (height, width, 3))
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")


def time_pillow(path, runs):
    data = open(path, "rb").read()
    times, cpu = [], []
    for _ in range(runs):
        cpu_start = time.thread_time()
        start = time.perf_counter()
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            size = im.size
        times.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - cpu_start)
    times.sort()
    cpu.sort()
    return size, times[len(times) // 2], cpu[len(cpu) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lift", default=".build/release/lift-bench")
    args = parser.parse_args()
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".work", "jpeg-bench")
    os.makedirs(folder, exist_ok=True)
    picture = photo(4000, 3000)
    files = {
        "baseline_420_q90": dict(quality=90),
        "progressive_420_q90": dict(quality=90, progressive=True),
        "baseline_444_q95": dict(quality=95, subsampling=0),
    }
    paths = []
    for name, options in files.items():
        path = os.path.join(folder, name + ".jpg")
        picture.save(path, "JPEG", **options)
        paths.append(path)
    lift = subprocess.run([args.lift, "jpeg", "--dump", "--runs", str(args.runs)] + paths, capture_output=True, text=True, check=True)
    lift_results = {r["file"]: r for r in map(json.loads, lift.stdout.strip().splitlines())}
    print("| file | size | Pillow MB/s (wall ms, CPU ms) | Lift MB/s (wall ms, CPU ms) | Lift / Pillow, wall | Lift / Pillow, CPU |")
    print("|---|---|---|---|---|---|")
    for path in paths:
        (w, h), median, cpu = time_pillow(path, args.runs)
        megabytes = w * h * 3 / 1e6
        ours = lift_results[path]
        print(f"| {os.path.basename(path)} | {w}x{h}, {os.path.getsize(path) / 1e6:.1f} MB "
              f"| {megabytes / median:.0f} ({median * 1e3:.0f}, {cpu * 1e3:.0f}) "
              f"| {ours['mb_per_s']:.0f} ({ours['median_s'] * 1e3:.0f}, {ours['cpu_median_s'] * 1e3:.0f}) "
              f"| {median / ours['median_s']:.2f} | {cpu / ours['cpu_median_s']:.2f} |")
    print()
    for path in paths:
        with Image.open(path) as im:
            reference = np.asarray(im.convert("RGB")).astype(np.int16)
        ours = np.fromfile(path + ".lift.rgb", dtype=np.uint8).reshape(reference.shape).astype(np.int16)
        difference = np.abs(ours - reference)
        print(f"parity {os.path.basename(path)}: {100 * np.mean(difference <= 1):.4f}% of samples within ±1, "
              f"{100 * np.mean(difference == 0):.4f}% exact, max difference {difference.max()}")


if __name__ == "__main__":
    main()
