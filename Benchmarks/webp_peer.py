#!/usr/bin/env python3
"""WebP speed and size: Lift's WebPDecoder and WebPEncoder against libwebp (dwebp, cwebp) and Pillow,
same files, same run.

Usage: .venv/bin/python Benchmarks/webp_peer.py [--runs N] [--lift PATH-TO-lift-bench] [--photo FILE]
                                                [--cutouts DIR]

Decode: makes a 12 MP picture (from --photo, resized, or a synthetic photo-like one), saves it as lossy
WebP (cwebp -q 80) and lossless WebP (cwebp -lossless -z 1) under Benchmarks/.work/webp-bench/, and
times the decode of each by dwebp (process CPU time, writing PAM to /dev/null, one thread), Pillow
(open + load, thread CPU time) and `lift-bench webp decode` (thread CPU time, one thread). Throughput is MB/s of RGBA output
(width x height x 4) from the median time. Lift's pixels are checked against dwebp's and Pillow's.

Encode: the cut-outs in --cutouts (PNG files, e.g. made with `lift photo.jpg -o cut.png`; a synthetic
cut-out when none is given) are encoded as lossless WebP by Lift (`lift-bench webp encode`, one thread),
Pillow (`lossless=True`, its defaults; thread CPU time) and cwebp (`-lossless`, default effort, process
CPU time, reading a PAM copy of the cut-out).
The table gives sizes (and Lift's PNG at its default level 4) and encode MB/s of RGBA input. Every file
Lift writes is decoded by dwebp and by Pillow, which must give the source pixels (RGB of fully
transparent pixels zeroed).
"""
import argparse
import glob
import io
import json
import os
import subprocess
import tempfile
import time

import numpy as np
from PIL import Image

from jpeg_peer import photo

WORK = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".work", "webp-bench")


def synthetic_cutout(width, height):
    rgb = np.asarray(photo(width, height, seed=3))
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    d = np.sqrt((x - width / 2) ** 2 + (y - height / 2) ** 2) - min(width, height) * 0.35
    alpha = np.clip(128 - 40 * d, 0, 255).astype(np.uint8)
    rgba = np.dstack([rgb, alpha])
    rgba[alpha == 0, :3] = 0
    return Image.fromarray(rgba, "RGBA")


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def tool_cpu_time(command):
    """CPU seconds (user + system) a libwebp tool takes for `command`, output discarded."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    assert status == 0, f"{command} failed"
    return usage.ru_utime + usage.ru_stime


def write_pam(image, path):
    with open(path, "wb") as f:
        f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % image.size)
        f.write(image.tobytes())


def pam_rgba(data):
    end = data.index(b"ENDHDR\n") + len(b"ENDHDR\n")
    return np.frombuffer(data[end:], np.uint8)


def dwebp_pixels(path):
    with tempfile.NamedTemporaryFile(suffix=".pam") as pam:
        subprocess.run(["dwebp", "-quiet", path, "-pam", "-o", pam.name], check=True)
        return pam_rgba(open(pam.name, "rb").read())


def pillow_pixels(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("RGBA")).reshape(-1)


def lift(args, lift_bench):
    result = subprocess.run([lift_bench, "webp"] + args, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in result.stdout.strip().splitlines()]


def decode_benchmark(args):
    picture = photo(4000, 3000)
    if args.photo:
        with Image.open(args.photo) as im:
            picture = im.convert("RGB").resize((4000, 3000), Image.LANCZOS)
    source = os.path.join(WORK, "decode-source.png")
    picture.save(source)
    files = {"lossy q80": ["-q", "80"], "lossless z1": ["-lossless", "-z", "1"]}
    paths = {}
    for name, options in files.items():
        path = os.path.join(WORK, name.replace(" ", "_") + ".webp")
        subprocess.run(["cwebp", "-quiet"] + options + [source, "-o", path], check=True)
        paths[name] = path
    ours = {r["file"]: r for r in lift(["decode", "--dump", "--runs", str(args.runs)] + list(paths.values()), args.lift)}
    print("| file | size | dwebp MB/s (CPU ms) | Pillow MB/s (CPU ms) | Lift MB/s (CPU ms) | Lift / dwebp | Lift / Pillow |")
    print("|---|---|---|---|---|---|---|")
    for name, path in paths.items():
        dwebp = median([tool_cpu_time(["dwebp", path, "-pam", "-o", "/dev/null"]) for _ in range(args.runs)])
        data = open(path, "rb").read()
        pillow = []
        for _ in range(args.runs):
            start = time.thread_time()
            with Image.open(io.BytesIO(data)) as im:
                im.load()
                size = im.size
            pillow.append(time.thread_time() - start)
        pillow = median(pillow)
        mine = ours[path]["cpu_median_s"]
        megabytes = size[0] * size[1] * 4 / 1e6
        print(f"| {name} | {size[0]}x{size[1]}, {len(data) / 1e6:.2f} MB | {megabytes / dwebp:.0f} ({dwebp * 1e3:.0f}) "
              f"| {megabytes / pillow:.0f} ({pillow * 1e3:.0f}) | {megabytes / mine:.0f} ({mine * 1e3:.0f}) "
              f"| {dwebp / mine:.2f} | {pillow / mine:.2f} |")
    print()
    for name, path in paths.items():
        lift_rgba = np.fromfile(path + ".lift.rgba", np.uint8)
        exact_dwebp = np.array_equal(lift_rgba, dwebp_pixels(path))
        exact_pillow = np.array_equal(lift_rgba, pillow_pixels(path))
        print(f"parity {name}: Lift == dwebp: {exact_dwebp}, Lift == Pillow: {exact_pillow}")


def encode_benchmark(args):
    cutouts = sorted(glob.glob(os.path.join(args.cutouts, "*.png"))) if args.cutouts else []
    if not cutouts:
        path = os.path.join(WORK, "synthetic-cutout.png")
        synthetic_cutout(2000, 1500).save(path)
        cutouts = [path]
    out = os.path.join(WORK, "encoded")
    os.makedirs(out, exist_ok=True)
    ours = {r["file"]: r for r in lift(["encode", "--out", out, "--runs", str(args.runs)] + cutouts, args.lift)}
    print()
    print("| cut-out | pixels | Lift PNG (level 4) | Lift WebP | cwebp -lossless | Pillow lossless | Lift MB/s | cwebp MB/s | Pillow MB/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    checks = []
    for path in cutouts:
        name = os.path.splitext(os.path.basename(path))[0]
        mine = ours[path]
        assert mine["round_trip"], f"{name}: Lift's WebP does not decode back to its pixels"
        cwebp_file = os.path.join(out, name + ".cwebp.webp")
        with Image.open(path) as im:
            rgba = im.convert("RGBA")
        # cwebp reads a PAM copy, whose reading costs next to nothing beside the encode.
        pam = os.path.join(out, name + ".pam")
        write_pam(rgba, pam)
        cwebp = median([tool_cpu_time(["cwebp", "-lossless", pam, "-o", cwebp_file]) for _ in range(args.runs)])
        pillow_times = []
        for _ in range(args.runs):
            buffer = io.BytesIO()
            start = time.thread_time()
            rgba.save(buffer, "WEBP", lossless=True)
            pillow_times.append(time.thread_time() - start)
        megabytes = mine["width"] * mine["height"] * 4 / 1e6
        pillow = median(pillow_times)
        print(f"| {name} | {mine['width']}x{mine['height']} | {mine['png_bytes']:,} | {mine['bytes']:,} "
              f"({mine['bytes'] / mine['png_bytes']:.2f} of PNG) | {os.path.getsize(cwebp_file):,} "
              f"(Lift {mine['bytes'] / os.path.getsize(cwebp_file):.2f}x) | {len(buffer.getvalue()):,} "
              f"| {megabytes / mine['cpu_median_s']:.1f} | {megabytes / cwebp:.1f} | {megabytes / pillow:.1f} |")
        expected = np.asarray(rgba).copy()
        expected[expected[..., 3] == 0, :3] = 0
        lift_file = os.path.join(out, name + ".lift.webp")
        checks.append((name, np.array_equal(dwebp_pixels(lift_file), expected.reshape(-1)),
                       np.array_equal(pillow_pixels(lift_file), expected.reshape(-1))))
    print()
    for name, by_dwebp, by_pillow in checks:
        print(f"Lift's {name}.webp decodes exactly: dwebp {by_dwebp}, Pillow {by_pillow}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lift", default=".build/release/lift-bench")
    parser.add_argument("--photo", help="a photo to resize to 12 MP for the decode benchmark")
    parser.add_argument("--cutouts", help="a folder of cut-out PNGs for the encode benchmark")
    args = parser.parse_args()
    os.makedirs(WORK, exist_ok=True)
    decode_benchmark(args)
    encode_benchmark(args)


if __name__ == "__main__":
    main()
