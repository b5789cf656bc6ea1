#!/usr/bin/env python3
"""PNG codec benchmark: Lift vs Pillow (libpng/zlib) and OpenCV on the same files in the same run.

Usage: .venv/bin/python Benchmarks/png_peer.py [DIR] [REPEATS] [--compressors-only] [--photos=FOLDER]
  (build first: swift build -c release --product lift --product lift-bench)
  FOLDER holds the source photos named below (default ../shared/photos, beside the checkout)

Writes the inputs to DIR (default Benchmarks/.work/png-bench), photos resized with Pillow's Lanczos:
  photo-12mp.png          4000x3000 RGB, FOLDER/objects/bike.jpg resized
  rgba-1080p.png          1920x1080 RGBA, a 1080p photo with a soft elliptical alpha ramp
  mask-4k.png             3840x2160 grey, a hard mask with soft (blurred) edges
  cutout-12mp.png         the cut-out `.build/release/lift` makes of bike.jpg resized to 4000x3000
                          (saved as JPEG q92 first, as a camera would): RGBA, background alpha 0
                          and colour 0, soft edges
  cutout-person-11mp.png  the same for people/julia_trotti_17.jpg at 4000x2667
Then two tables:
- compressors: Lift's fast compressor and zlib levels 1, 4, 6 (`lift-bench png`'s `compress` lines:
  bytes, best-of-REPEATS CPU and wall ms on 1 and 2 threads) against Pillow's `save` at
  compress_level 1 and 6 and OpenCV's `imencode` with IMWRITE_PNG_COMPRESSION 1 (both single-threaded:
  best CPU and wall ms) on the cut-outs, the photo and the RGBA frame;
- codec (unless --compressors-only): Pillow decode (open + load) and encode (save at the default
  level, and level 1 for the "fast" row; Pillow decodes the mask to "L", one byte per pixel, so it is
  also compared with Lift's decodeGray as "decode-gray") against `lift-bench png`, MB/s of raw source
  pixels and Lift/Pillow ratios, best of REPEATS in process CPU time for both.
"""
import io
import os
import subprocess
import sys
import time

import cv2
import numpy as np
from PIL import Image, ImageFilter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
OPTIONS = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
DIR = ARGS[0] if ARGS else os.path.join(ROOT, "Benchmarks", ".work", "png-bench")
REPEATS = int(ARGS[1]) if len(ARGS) > 1 else 5
COMPRESSORS_ONLY = "--compressors-only" in sys.argv
PHOTOS = OPTIONS.get("photos", os.path.join(ROOT, "..", "shared", "photos"))
CUTOUTS = {"cutout-12mp": ("objects/bike.jpg", (4000, 3000)), "cutout-person-11mp": ("people/julia_trotti_17.jpg", (4000, 2667))}


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
    for name, (photo, size) in CUTOUTS.items():
        cutout = os.path.join(DIR, name + ".png")
        if not os.path.exists(cutout):
            jpeg = os.path.join(DIR, name + ".jpg")
            Image.open(f"{PHOTOS}/{photo}").convert("RGB").resize(size, Image.LANCZOS).save(jpeg, quality=92)
            subprocess.run([os.path.join(ROOT, ".build", "release", "lift"), jpeg, "-o", cutout, "-q"], check=True)


def best_of(fn):
    """Fastest of REPEATS runs in process CPU seconds (steadier than wall time on a shared machine)."""
    return best_cpu_and_wall(fn)[0]


def best_cpu_and_wall(fn):
    """The least process CPU seconds and the least wall seconds over REPEATS runs (each its own best)."""
    cpu = wall = float("inf")
    for _ in range(REPEATS):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu, wall = min(cpu, time.process_time() - c), min(wall, time.perf_counter() - w)
    return cpu, wall


COMPRESSOR_IMAGES = ("cutout-12mp", "cutout-person-11mp", "photo-12mp", "rgba-1080p")


def peer_compressor_rows():
    """(image, encoder) -> (bytes, cpu ms, wall ms) for Pillow at levels 1 and 6 and OpenCV at level 1."""
    rows = {}
    for name in COMPRESSOR_IMAGES:
        im = Image.open(os.path.join(DIR, name + ".png"))
        im.load()
        for level in (1, 6):
            out = io.BytesIO()

            def save():
                out.seek(0)
                out.truncate()
                im.save(out, "PNG", compress_level=level)

            cpu, wall = best_cpu_and_wall(save)
            rows[(name, f"Pillow {level}")] = (len(out.getvalue()), cpu * 1000, wall * 1000)
        pixels = np.asarray(im)
        bgr = cv2.cvtColor(pixels, cv2.COLOR_RGBA2BGRA if pixels.shape[2] == 4 else cv2.COLOR_RGB2BGR)
        encoded = []

        def imencode():
            encoded[:] = [cv2.imencode(".png", bgr, [cv2.IMWRITE_PNG_COMPRESSION, 1])[1]]

        cpu, wall = best_cpu_and_wall(imencode)
        rows[(name, "OpenCV 1")] = (len(encoded[0]), cpu * 1000, wall * 1000)
    return rows


def lift_compressor_rows(lines):
    """(image, encoder) -> (bytes, cpu1, wall1, cpu2, wall2) from `lift-bench png`'s compress lines."""
    rows = {}
    for line in lines:
        parts = line.split()
        if len(parts) >= 5 and parts[:2] == ["png", "compress"]:
            f = dict(p.split("=") for p in parts[5:])
            mode = "Lift fast" if parts[2] == "fast" else "Lift zlib " + parts[2].split("-")[1]
            rows[(parts[3], mode)] = (int(f["bytes"]), float(f["cpu1_ms"]), float(f["wall1_ms"]), float(f["cpu2_ms"]), float(f["wall2_ms"]))
    return rows


def print_compressor_table(lift, peers):
    print("| image | encoder | bytes | vs Lift zlib 4 | CPU ms, 1 thread | wall ms, 1 thread | CPU ms, 2 threads | wall ms, 2 threads |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    order = ["Lift fast", "Lift zlib 1", "Lift zlib 4", "Lift zlib 6", "Pillow 1", "Pillow 6", "OpenCV 1"]
    for name in COMPRESSOR_IMAGES:
        base = lift.get((name, "Lift zlib 4"), (None,))[0]
        for encoder in order:
            if (name, encoder) in lift:
                size, cpu1, wall1, cpu2, wall2 = lift[(name, encoder)]
                times = f"{cpu1:.1f} | {wall1:.1f} | {cpu2:.1f} | {wall2:.1f}"
            elif (name, encoder) in peers:
                size, cpu1, wall1 = peers[(name, encoder)]
                times = f"{cpu1:.1f} | {wall1:.1f} | | "
            else:
                continue
            ratio = f"{size / base:.3f}" if base else ""
            print(f"| {name} | {encoder} | {size:,} | {ratio} | {times} |")


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


def lift_lines():
    exe = os.path.join(ROOT, ".build", "release", "lift-bench")
    arguments = [exe, "png", DIR, str(REPEATS)] + (["--compressors-only"] if COMPRESSORS_ONLY else [])
    return subprocess.run(arguments, check=True, capture_output=True, text=True).stdout.splitlines()


def lift_rows(lines):
    rows = {}
    for line in lines:
        parts = line.split()
        if parts[:2] == ["png", "compress"]:
            continue
        if len(parts) < 5 or parts[0] != "png" or parts[1] in ("skip", "error"):
            print(line)
            continue
        fields = dict(p.split("=") for p in parts[4:])
        rows[(parts[1], parts[2])] = (float(fields["MBps"]), int(fields["bytes"]) if "bytes" in fields else None)
    return rows


def main():
    make_inputs()
    peers = peer_compressor_rows()
    pillow = {} if COMPRESSORS_ONLY else pillow_rows()
    lines = lift_lines()
    print_compressor_table(lift_compressor_rows(lines), peers)
    if COMPRESSORS_ONLY:
        return
    lift = lift_rows(lines)
    print()
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
