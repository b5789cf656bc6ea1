#!/usr/bin/env python3
"""The Dask driver's cost per image against plain `lift DIR` on the same photos, and 1 vs 2 workers.

    .venv/bin/python Benchmarks/distributed_bench.py [--photos 200] [--shards 4] [--rounds 2]

Generates seeded 640×480 photos (Tools/distributed/local_cluster.py), then, each round, in one run:
plain `lift photos/ -o out/` (all cores), the driver on a 1-worker cluster (`lift -j 2` per shard)
and on a 2-worker cluster (`lift -j 1` per shard, two shards at a time). Every configuration starts
from an empty output directory; the best round of each is reported, with the overhead against plain
`lift` per image. Needs `swift build -c release` and `Tools/setup-python.sh dask distributed pyyaml`.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from liftpy.distributed.local_cluster import LocalCluster, make_photos

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def timed(command):
    started = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=200)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--lift", default=os.path.join(ROOT, ".build", "release", "lift"))
    args = parser.parse_args()
    lift = os.path.abspath(args.lift)
    best = {}
    with tempfile.TemporaryDirectory(prefix="lift-bench-") as work:
        photos = make_photos(os.path.join(work, "photos"), args.photos, width=640, height=480)
        manifest = os.path.join(work, "manifest.txt")
        with open(manifest, "w") as handle:
            handle.write("".join(p + "\n" for p in photos))
        out = os.path.join(work, "out")
        clusters = {}
        for workers in (1, 2):
            os.makedirs(os.path.join(work, f"cluster-{workers}"))
            clusters[workers] = LocalCluster(os.path.join(work, f"cluster-{workers}"), workers)
        try:
            for _ in range(args.rounds):
                runs = [("plain lift DIR (-j 2)", [lift, os.path.join(work, "photos"), "-o", out, "-q"])]
                for workers, threads in ((1, 2), (2, 1)):
                    runs.append((f"Dask, {workers} worker{'s' if workers > 1 else ''} (lift -j {threads})",
                                 [sys.executable, "-m", "liftpy.distributed.lift_dask", "--scheduler", clusters[workers].address, "--manifest", manifest,
                                  "--shards", str(args.shards), "--out", out, "--report", os.path.join(work, "report.json"),
                                  "--lift", lift, "--", "-j", str(threads)]))
                for name, command in runs:
                    shutil.rmtree(out, ignore_errors=True)
                    seconds = timed(command)
                    if len(os.listdir(out)) != args.photos:
                        raise SystemExit(f"{name}: {len(os.listdir(out))} outputs, not {args.photos}")
                    best[name] = min(best.get(name, float("inf")), seconds)
        finally:
            for cluster in clusters.values():
                cluster.close()
    plain = best["plain lift DIR (-j 2)"]
    print(f"{args.photos} photos 640x480, {args.shards} shards, best of {args.rounds} rounds, {os.cpu_count()} cores")
    print("| configuration | wall s | ms / image | vs plain lift |")
    print("|---|---|---|---|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds:.2f} | {1000 * seconds / args.photos:.1f} | {seconds / plain:.3f}× |")


if __name__ == "__main__":
    main()
