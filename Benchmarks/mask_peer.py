#!/usr/bin/env python3
"""Peer timings for `lift-bench mask`: OpenCV connectedComponentsWithStats and scipy.ndimage.label
on the identical 12 MP mask the Swift side wrote, with ratios against the Swift figures.

Usage: swift run -c release lift-bench mask DIR && .venv/bin/python Benchmarks/mask_peer.py DIR
"""
import json
import sys
import time

import cv2
import numpy as np
import scipy.ndimage as ndi


def best_median(fn, runs):
    """Wall ms best and median over `runs` after a warm-up, and the least process CPU ms of a run."""
    fn()
    times = []
    cpu = float("inf")
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        fn()
        cpu = min(cpu, (time.process_time() - c) * 1000)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return times[0], times[len(times) // 2], cpu


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "Benchmarks/.work/mask-bench"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    mask = cv2.imread(f"{directory}/mask.pgm", cv2.IMREAD_GRAYSCALE)
    with open(f"{directory}/swift.json") as f:
        swift = json.load(f)
    h, w = mask.shape
    mp = w * h / 1e6
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_32S)
    assert n - 1 == int(swift["components"]), f"OpenCV finds {n - 1} components, Swift {swift['components']}"
    assert int(stats[1:, cv2.CC_STAT_AREA].sum()) == int(swift["foreground_pixels"])
    print(f"mask {w}×{h}, {n - 1} components (agree with Swift); {runs} runs, best / median ms")
    binary = mask != 0
    eight = np.ones((3, 3), dtype=bool)
    for threads in (1, 2):
        cv2.setNumThreads(threads)
        cv8 = best_median(lambda: cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_32S), runs)
        cv4 = best_median(lambda: cv2.connectedComponentsWithStats(mask, connectivity=4, ltype=cv2.CV_32S), runs)
        s8 = swift[f"components8_ms_{threads}t"]
        s4 = swift[f"components4_ms_{threads}t"]
        print(f"threads {threads}:")
        c8 = swift[f"components8_cpu_ms_{threads}t"]
        c4 = swift[f"components4_cpu_ms_{threads}t"]
        print(f"  OpenCV {cv2.__version__} 8-conn + stats  {cv8[0]:7.2f} / {cv8[1]:7.2f} ms  CPU {cv8[2]:7.2f}  {mp / cv8[0] * 1000:6.0f} Mpixel/s"
              f"  | Lift {s8:7.2f} ms, CPU {c8:7.2f}: {cv8[0] / s8:5.2f}× OpenCV's speed (wall), {cv8[2] / c8:5.2f}× (CPU)")
        print(f"  OpenCV {cv2.__version__} 4-conn + stats  {cv4[0]:7.2f} / {cv4[1]:7.2f} ms  CPU {cv4[2]:7.2f}  {mp / cv4[0] * 1000:6.0f} Mpixel/s"
              f"  | Lift {s4:7.2f} ms, CPU {c4:7.2f}: {cv4[0] / s4:5.2f}× OpenCV's speed (wall), {cv4[2] / c4:5.2f}× (CPU)")
    # SciPy is single-threaded; labels only (stats would cost extra passes).
    sp8 = best_median(lambda: ndi.label(binary, structure=eight), max(3, runs // 2))
    sp4 = best_median(lambda: ndi.label(binary), max(3, runs // 2))
    print(f"scipy.ndimage.label (1 thread, labels only): 8-conn {sp8[0]:7.2f} ms, CPU {sp8[2]:7.2f} ({mp / sp8[0] * 1000:.0f} Mpixel/s; "
          f"Lift 1 thread with stats {sp8[0] / swift['components8_ms_1t']:.2f}× its speed); "
          f"4-conn {sp4[0]:7.2f} ms, CPU {sp4[2]:7.2f} (Lift {sp4[0] / swift['components4_ms_1t']:.2f}×)")


if __name__ == "__main__":
    main()
