"""Full-resolution cut-outs: whole `lift` processes on 1, 12 and 24 MP photos, per-stage
times and peak RSS, against libjpeg-turbo's decode (Pillow) and Pillow's / OpenCV's PNG encode of the
same cut-out, in one run.

    swift build -c release --product lift
    .venv/bin/python Benchmarks/fullres.py --make-inputs ../shared/photos/objects/horse.jpg
    .venv/bin/python Benchmarks/fullres.py [--repeat 5] [--huge]

`--make-inputs SOURCE` writes `Benchmarks/.work/fullres/photo-{1,12,24}mp.jpg` (Lanczos resizes of
SOURCE, quality 90) and, with `--huge`, a 14000x14000 PNG (196 MP). Each row runs
`lift PHOTO -o OUT --force --json -` (plus the mode's options, at the default zlib level 4 and with
`--png-level fast`) `--repeat` times as fresh processes and
reports the median wall time of the whole process (start to exit), its median stage times (the
`--json` report's milliseconds), the largest peak RSS (`wait4`'s ru_maxrss) and the budget the issue
sets, 6 bytes per photo pixel + 150 MB. In the same run: Pillow's decode of the JPEG (best of
`--repeat`, libjpeg-turbo) and the time Pillow (compress_level 1 and 6) and OpenCV (level 1) take to
encode Lift's cut-out as PNG. The ratio column is the whole `lift` process over Pillow's decode: the
issue's goal is at most 4.
"""
from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import peer_env

peer_env.use_peer_python(["numpy", "PIL", "cv2"])

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

Image.MAX_IMAGE_PIXELS = None  # the 196 MP input is ours

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "Benchmarks" / ".work" / "fullres"
LIFT = REPO / ".build" / "release" / "lift"
SIZES = {"photo-1mp.jpg": (1155, 866), "photo-12mp.jpg": (4000, 3000), "photo-24mp.jpg": (5657, 4243)}
HUGE = ("photo-196mp.png", (14000, 14000))
MODES = {"transparent": [], "-b white": ["-b", "white"], "--crop": ["--crop"], "--mask": ["--mask", "MASK"]}
# Each mode at the default compression (zlib level 4) and with the fast compressor.
COMPRESSIONS = {"zlib 4": [], "fast": ["--png-level", "fast"]}


def make_inputs(source: Path, huge: bool) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    photo = Image.open(source).convert("RGB")
    for name, size in SIZES.items():
        photo.resize(size, Image.LANCZOS).save(WORK / name, quality=90)
    if huge:
        photo.resize(HUGE[1], Image.BILINEAR).save(WORK / HUGE[0], compress_level=1)


def run_lift(photo: Path, options: list[str], out: Path) -> tuple[float, float, dict[str, float]]:
    """One whole process: wall milliseconds, peak RSS in MB, the stage milliseconds."""
    arguments = [str(LIFT), str(photo), "-o", str(out), "--force", "--json", "-"]
    arguments += [str(out.with_suffix(".mask.png")) if a == "MASK" else a for a in options]
    start = time.perf_counter()
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    output = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if status != 0:
        sys.exit(f"lift failed on {photo} {options}: status {status}")
    timings = json.loads(output)["images"][0]["timings"]
    return wall, usage.ru_maxrss / 1024 * 1.048576, timings


def best_ms(repeat: int, body) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        body()
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def pillow_decode(path: Path) -> None:
    with Image.open(path) as image:
        image.load()


def peer_times(photo: Path, cutout: Path | None, repeat: int) -> dict[str, float]:
    """Pillow's decode of `photo`, Pillow's and OpenCV's encode of `cutout`, milliseconds (best of)."""
    result = {"pillow_decode_ms": best_ms(repeat, lambda: pillow_decode(photo))}
    if cutout:
        pixels = np.asarray(Image.open(cutout))
        image = Image.fromarray(pixels)
        bgra = cv2.cvtColor(pixels, cv2.COLOR_RGBA2BGRA)
        result["pillow_encode_1_ms"] = best_ms(2, lambda: image.save(io.BytesIO(), "PNG", compress_level=1))
        result["pillow_encode_6_ms"] = best_ms(2, lambda: image.save(io.BytesIO(), "PNG", compress_level=6))
        result["opencv_encode_1_ms"] = best_ms(2, lambda: cv2.imencode(".png", bgra, [cv2.IMWRITE_PNG_COMPRESSION, 1]))
    return result


def peers_in_child(photo: Path, cutout: Path | None, repeat: int) -> dict[str, float]:
    """`peer_times` in a separate process: this one stays small, since a child's peak RSS (`wait4`)
    counts what it shared with this process before its exec."""
    command = [sys.executable, __file__, "--peers", str(photo), "--repeat", str(repeat)]
    command += ["--cutout", str(cutout)] if cutout else []
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--make-inputs", type=Path, metavar="SOURCE")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--huge", action="store_true", help="also the 196 MP PNG (transparent mode, 2 runs)")
    parser.add_argument("--peers", type=Path, metavar="PHOTO", help=argparse.SUPPRESS)
    parser.add_argument("--cutout", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_inputs:
        make_inputs(args.make_inputs, args.huge)
        return
    if args.peers:
        print(json.dumps(peer_times(args.peers, args.cutout, args.repeat)))
        return
    if not LIFT.exists():
        sys.exit(f"build lift first: swift build -c release --product lift ({LIFT} is missing)")
    rows = []
    photos = [(WORK / name, size) for name, size in SIZES.items()]
    if args.huge:
        photos.append((WORK / HUGE[0], HUGE[1]))
    for path, (width, height) in photos:
        if not path.exists():
            sys.exit(f"{path} is missing: run with --make-inputs SOURCE first")
        pixels = width * height
        decode = peers_in_child(path, None, args.repeat)["pillow_decode_ms"]
        huge = pixels > 100_000_000
        for (mode, options), (compression, level) in itertools.product(MODES.items(), COMPRESSIONS.items()):
            if huge and mode != "transparent":
                continue
            out = WORK / f"out-{path.stem}.png"
            runs = [run_lift(path, options + level, out) for _ in range(2 if huge else args.repeat)]
            stages = {key: statistics.median(run[2][key] for run in runs) for key in runs[0][2]}
            row = {"photo": path.name, "pixels": pixels, "mode": f"{mode}, {compression}",
                   "wall_ms": statistics.median(r[0] for r in runs),
                   "rss_mb": max(r[1] for r in runs), "budget_mb": 6 * pixels / 1e6 + 150, "pillow_decode_ms": decode,
                   "stages": stages}
            row["lift_bytes"] = out.stat().st_size
            if mode == "transparent" and compression == "zlib 4":
                encodes = peers_in_child(path, out, 1)
                row.update({key: value for key, value in encodes.items() if key != "pillow_decode_ms"})
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print("| photo | mode | lift whole process ms | ÷ Pillow decode | decode | mask | composite | encode | write |"
          " peak RSS MB | budget MB | Pillow encode L1 / L6 ms | OpenCV L1 ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        s = r["stages"]
        peers = (f"{r['pillow_encode_1_ms']:.0f} / {r['pillow_encode_6_ms']:.0f} | {r['opencv_encode_1_ms']:.0f}"
                 if "pillow_encode_1_ms" in r else " | ")
        print(f"| {r['photo']} | {r['mode']} | {r['wall_ms']:.0f} | {r['wall_ms'] / r['pillow_decode_ms']:.1f} "
              f"| {s['decode']:.0f} | {s['mask']:.0f} | {s['composite']:.0f} | {s['encode']:.0f} | {s['write']:.0f} "
              f"| {r['rss_mb']:.0f} | {r['budget_mb']:.0f} | {peers} |")


if __name__ == "__main__":
    main()
