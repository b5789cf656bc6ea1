#!/usr/bin/env python3
"""Integration check: a real local Dask cluster cuts out 200 generated photos while one of its
workers is killed mid-run; every photo must end up cut out exactly once as far as the outputs show.

    .venv/bin/python -m liftpy.distributed.cluster_check [--photos 200] [--workers 3] [--shards 12]

Starts `dask scheduler` and `dask worker` processes on 127.0.0.1, runs `lift_dask.py` over a
manifest, SIGKILLs the process group of a worker that is running a shard once a fifth of the outputs
exist, and then checks: the driver exits 0, its merged report lists every photo once with no
failure, every output is a PNG that `lift info` reads, and no temporary file is left (the next run
in that directory removes any the killed `lift` left, as `lift` does). Exit 0 when all holds.
Needs the release build (`swift build -c release`) and the Python environment (Tools/setup-python.sh).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from liftpy.distributed.local_cluster import LocalCluster, make_photos

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=200)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--shards", type=int, default=12)
    parser.add_argument("--lift", default=os.path.join(ROOT, ".build", "release", "lift"))
    args = parser.parse_args()
    lift = os.path.abspath(args.lift)
    failures = []

    with tempfile.TemporaryDirectory(prefix="lift-cluster-") as work:
        photos = make_photos(os.path.join(work, "photos"), args.photos)
        manifest = os.path.join(work, "manifest.txt")
        with open(manifest, "w") as handle:
            handle.write("".join(p + "\n" for p in photos))
        out = os.path.join(work, "out")
        cluster = LocalCluster(work, args.workers)
        try:
            driver = subprocess.Popen([sys.executable, "-m", "liftpy.distributed.lift_dask",
                                       "--scheduler", cluster.address, "--manifest", manifest, "--shards", str(args.shards),
                                       "--out", out, "--report", os.path.join(work, "report.json"), "--lift", lift,
                                       "--", "-j", "1"])
            while len(os.listdir(out) if os.path.isdir(out) else []) < args.photos // 5:
                if driver.poll() is not None:
                    break
                time.sleep(0.05)
            killed = None
            if driver.poll() is None:
                pid, killed = cluster.busy_worker_pid()
                cluster.kill(pid)
                print(f"cluster_check: killed worker {killed} (process group {pid}) with "
                      f"{len(os.listdir(out))} of {args.photos} outputs written", file=sys.stderr)
            try:
                status = driver.wait(timeout=1800)
            except subprocess.TimeoutExpired:
                driver.kill()
                status = "a timeout (killed after 30 minutes)"
        finally:
            cluster.close()
        if status != 0:
            failures.append(f"the driver exited with {status}")
        if killed is None:
            failures.append("the run ended before a worker could be killed; use more photos")
        if not os.path.exists(os.path.join(work, "report.json")):
            failures.append("the driver wrote no report")
            for failure in failures:
                print("cluster_check: FAILED: " + failure, file=sys.stderr)
            return 1
        with open(os.path.join(work, "report.json")) as handle:
            report = json.load(handle)
        totals = report["totals"]
        inputs = [entry["input"] for entry in report["images"]]
        if sorted(inputs) != sorted(photos):
            failures.append(f"the report lists {len(inputs)} images ({len(set(inputs))} distinct), not the {len(photos)} photos")
        if totals["done"] != args.photos or totals["failed"]:
            failures.append(f"totals {totals}")
        expected = sorted(os.path.basename(p)[:-4] + ".cutout.png" for p in photos)
        written = sorted(os.listdir(out))
        leftovers = [name for name in written if name.startswith(".")]
        if [n for n in written if not n.startswith(".")] != expected:
            failures.append(f"{len(written)} files in the output directory, expected the {len(expected)} cut-outs")
        # A killed lift may leave its temporary file; the next run there removes it (`lift` logs it).
        if leftovers:
            rerun = subprocess.run([lift, "--files-from", manifest, "-o", out, "--skip-existing", "-q"],
                                   capture_output=True, text=True)
            if any(os.path.exists(os.path.join(out, name)) for name in leftovers) or rerun.returncode:
                failures.append(f"temporary files left and not cleaned: {leftovers}")
        unreadable = [name for name in expected
                      if subprocess.run([lift, "info", os.path.join(out, name)], capture_output=True).returncode]
        if unreadable:
            failures.append(f"{len(unreadable)} outputs lift info cannot read, e.g. {unreadable[:3]}")
        shards = report["shards"]
        print(f"cluster_check: {args.photos} photos, {args.workers} workers, {args.shards} shards in {report['seconds']} s; "
              f"totals {totals}; shards ran on {sorted({s['worker'] for s in shards})}; "
              f"{len(leftovers)} temporary file(s) of the killed run removed by the rerun", file=sys.stderr)
    for failure in failures:
        print("cluster_check: FAILED: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
