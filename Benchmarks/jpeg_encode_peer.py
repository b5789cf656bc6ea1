#!/usr/bin/env python3
"""JPEG encode speed and size: Lift's JPEGEncoder against Pillow (libjpeg-turbo with SIMD), same inputs, same run.

Usage: .venv/bin/python Benchmarks/jpeg_encode_peer.py [--runs N] [--size 4000x3000] [--lift PATH-TO-lift-bench]

Makes two 12 MP (4000 x 3000) pictures under Benchmarks/.work/jpeg-encode-bench/: the photo-like picture of
jpeg_peer.py, and a cut-out on white (the same picture outside a large ellipse replaced by white, what
`lift --background white` writes), plus a grey soft mask. For quality 75 and 90 and subsampling 4:2:0 and
4:4:4 (grey: one component), it times Pillow's `save(quality=Q, subsampling=S, optimize=True)` (the
settings Lift's defaults match) and `lift-bench jpeg-encode` on 1 and 2 threads, and prints MB/s of input
pixels counted as RGB (width x height x 3; x 1 for grey) from the median wall time, the median CPU time,
both file sizes, whether the files are byte-identical, and the PSNR of Pillow's decode of each file against
the input. Every Lift file is also decoded by Pillow, which must accept it.
"""
import argparse
import io
import json
import os
import subprocess
import time

import numpy as np
from PIL import Image

from jpeg_peer import photo


def cutout_on_white(picture):
    """The picture inside an ellipse with a 3-pixel soft edge, composited on white."""
    width, height = picture.size
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    distance = np.sqrt(((x - width * 0.5) / (width * 0.32)) ** 2 + ((y - height * 0.55) / (height * 0.4)) ** 2)
    alpha = np.clip((1 - distance) * min(width, height) * 0.35 / 3, 0, 1)[..., None]
    rgb = np.asarray(picture).astype(np.float32) * alpha + 255 * (1 - alpha)
    mask = Image.fromarray((alpha[..., 0] * 255 + 0.5).astype(np.uint8), "L")
    return Image.fromarray((rgb + 0.5).astype(np.uint8), "RGB"), mask


def time_pillow(image, runs, **options):
    times, cpu = [], []
    for _ in range(runs):
        buffer = io.BytesIO()
        cpu_start, start = time.thread_time(), time.perf_counter()
        image.save(buffer, "JPEG", **options)
        times.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - cpu_start)
    return buffer.getvalue(), sorted(times)[len(times) // 2], sorted(cpu)[len(cpu) // 2]


def psnr(encoded, original):
    decoded = np.asarray(Image.open(io.BytesIO(encoded)).convert(original.mode)).astype(np.float64)
    mse = np.mean((decoded - np.asarray(original).astype(np.float64)) ** 2)
    return 10 * np.log10(255.0 ** 2 / mse)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", default="4000x3000")
    parser.add_argument("--lift", default=".build/release/lift-bench")
    args = parser.parse_args()
    width, height = map(int, args.size.split("x"))
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".work", "jpeg-encode-bench")
    os.makedirs(folder, exist_ok=True)
    picture = photo(width, height)
    cutout, mask = cutout_on_white(picture)
    inputs = {"photo": picture, "cutout-on-white": cutout, "mask": mask}
    paths = {}
    for name, image in inputs.items():
        paths[name] = os.path.join(folder, name + ".png")
        image.save(paths[name], compress_level=1)

    print(f"| input | q | sampling | Pillow MB/s (wall ms, CPU ms) | Lift 1 thread MB/s (wall ms, CPU ms) "
          f"| Lift 2 threads MB/s (wall ms) | CPU ratio Pillow/Lift | bytes Pillow | bytes Lift | identical | PSNR Pillow / Lift dB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, image in inputs.items():
        gray = image.mode == "L"
        command = [args.lift, "jpeg-encode", paths[name], "--quality", "75,90", "--runs", str(args.runs)] + (["--gray"] if gray else [])
        ours = {}
        for threads in (1, 2):
            run = subprocess.run(command + ["--threads", str(threads)] + (["--write"] if threads == 1 else []),
                                 capture_output=True, text=True, check=True)
            for line in run.stdout.strip().splitlines():
                result = json.loads(line)
                ours[(result["quality"], result["subsampling"], threads)] = result
        megabytes = width * height * (1 if gray else 3) / 1e6
        for quality in (75, 90):
            for tag in (["gray"] if gray else ["420", "444"]):
                options = {"quality": quality, "optimize": True}
                if not gray:
                    options["subsampling"] = 2 if tag == "420" else 0
                theirs, wall, cpu = time_pillow(image, args.runs, **options)
                one, two = ours[(quality, tag, 1)], ours[(quality, tag, 2)]
                lift_file = open(f"{paths[name]}.lift-q{quality}-{tag}.jpg", "rb").read()
                print(f"| {name} | {quality} | {tag} | {megabytes / wall:.0f} ({wall * 1e3:.0f}, {cpu * 1e3:.0f}) "
                      f"| {one['mb_per_s']:.0f} ({one['median_s'] * 1e3:.0f}, {one['cpu_median_s'] * 1e3:.0f}) "
                      f"| {two['mb_per_s']:.0f} ({two['median_s'] * 1e3:.0f}) | {cpu / one['cpu_median_s']:.2f} "
                      f"| {len(theirs)} | {len(lift_file)} | {'yes' if lift_file == theirs else 'NO'} "
                      f"| {psnr(theirs, image):.2f} / {psnr(lift_file, image):.2f} |")


main()
