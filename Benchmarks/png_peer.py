#!/usr/bin/env python3
"""PNG codec benchmark: Lift vs Pillow (libpng/zlib) on the same files in the same run.

Usage: .venv/bin/python Benchmarks/png_peer.py [DIR] [REPEATS]
  (build first: swift build -c release --product lift-bench)

Writes three inputs to DIR (default Benchmarks/.work/png-bench) with Pillow at its default level:
  photo-12mp.png  4000x3000 RGB, ../shared/photos/objects/bike.jpg resized (Lanczos)
  rgba-1080p.png  1920x1080 RGBA, a 1080p photo with a soft elliptical alpha ramp
  mask-4k.png     3840x2160 grey, a hard mask with soft (blurred) edges
then times Pillow decode (open + load) and encode (save at the default level, and level 1 for the
"fast" row; Pillow decodes the mask to "L", one byte per pixel, so it is also compared with Lift's
decodeGray as "decode-gray") and `.build/release/lift-bench png DIR REPEATS`, printing MB/s of raw source pixels and
Lift/Pillow ratios as a Markdown table. Times are the best of REPEATS in process CPU time, for both.
"""
import io
import os
import subprocess
import sys
import time

import numpy as np
from PIL import Image, ImageFilter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Benchmarks", ".work", "png-bench")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PHOTOS = os.path.join(ROOT, "..", "shared", "photos")


def make_inputs():
    os.makedirs(DIR, exist_ok=True)
    photo = os.path.join(DIR, "photo-12mp.png")
    if not os.path.exists(photo):
        Image.open(f"{PHOTOS}/objects/bike.jpg").convert("RGB").resize((4000, 3000), Image.LANCZOS).save(photo)
    rgba = os.path.join(DIR, "rgba-1080p.png")
    if not os.path.exists(rgba):
        im = Image.open(f"{PHOTOS}/people/480112-637286191695715805-16x9.jpg").convert("RGB").resize((1920, 1080))
        yy, xx = np.mgrid[0:1080, 0:1920]
        r = np.sqrt(((xx - 960) / 700.0) ** 2 + ((yy - 540) / 480.0) ** 2)
        alpha = (np.clip((1.1 - r) / 0.3, 0, 1) * 255).astype(np.uint8)
        Image.fromarray(np.dstack([np.asarray(im), alpha]), "RGBA").save(rgba)
    mask = os.path.join(DIR, "mask-4k.png")
    if not os.path.exists(mask):
        yy, xx = np.mgrid[0:2160, 0:3840]
        hard = (((xx - 1900) / 900.0) ** 2 + ((yy - 1100) / 800.0) ** 2 < 1) | ((abs(xx - 3000) < 300) & (abs(yy - 700) < 500))
        m = Image.fromarray((hard * 255).astype(np.uint8), "L").filter(ImageFilter.GaussianBlur(3))
        m.save(mask)


def best_of(fn):
    """Fastest of REPEATS runs in process CPU seconds (steadier than wall time on a shared machine)."""
    best = float("inf")
    for _ in range(REPEATS):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def pillow_rows():
    rows = {}
    for name in ("photo-12mp", "rgba-1080p", "mask-4k"):
        data = open(os.path.join(DIR, name + ".png"), "rb").read()
        im = Image.open(io.BytesIO(data))
        im.load()
        raw = im.width * im.height * len(im.getbands())

        def decode():
            Image.open(io.BytesIO(data)).load()

        rows[("decode", name)] = (raw / best_of(decode) / 1e6, None)
        if im.mode == "L":
            rows[("decode-gray", name)] = rows[("decode", name)]
        for op, level in (("encode", 6), ("encode-fast", 1)):
            out = io.BytesIO()

            def encode():
                out.seek(0)
                out.truncate()
                im.save(out, "PNG", compress_level=level)

            rows[(op, name)] = (raw / best_of(encode) / 1e6, len(out.getvalue()))
    return rows


def lift_rows():
    exe = os.path.join(ROOT, ".build", "release", "lift-bench")
    out = subprocess.run([exe, "png", DIR, str(REPEATS)], check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 5 or parts[0] != "png" or parts[1] in ("skip", "error"):
            print(line)
            continue
        fields = dict(p.split("=") for p in parts[4:])
        rows[(parts[1], parts[2])] = (float(fields["MBps"]), int(fields["bytes"]) if "bytes" in fields else None)
    return rows


def main():
    make_inputs()
    pillow = pillow_rows()
    lift = lift_rows()
    print("| operation | image | Lift MB/s | Pillow MB/s | speed ratio | Lift bytes | Pillow bytes | size ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(pillow, key=lambda k: (k[1], k[0])):
        if key not in lift:
            continue
        (ls, lb), (ps, pb) = lift[key], pillow[key]
        size = f"| {lb} | {pb} | {lb / pb:.3f} |" if lb else "| | | |"
        print(f"| {key[0]} | {key[1]} | {ls:.1f} | {ps:.1f} | {ls / ps:.2f} {size}")


if __name__ == "__main__":
    main()
