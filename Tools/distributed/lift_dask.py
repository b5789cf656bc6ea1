#!/usr/bin/env python3
"""Cut out a manifest of photos on a Dask distributed cluster, one `lift` process per shard.

    .venv/bin/python -m liftpy.distributed.lift_dask --scheduler tcp://HOST:8786 (or --scheduler-file F) \
        --manifest photos.txt --shards 64 --out cutouts/ --report report.json [--lift PATH] \
        [-- LIFT_OPTIONS...]

Each of the N tasks runs, on whichever worker Dask gives it,

    lift --files-from MANIFEST --shard K/N -o OUT --skip-existing --json-lines -q LIFT_OPTIONS...

and returns the JSON lines it printed. The manifest, the photos, OUT and the `lift` binary must be at
the same paths on every worker (a shared or replicated file system), as with any batch engine.

Why a shard is safe to run twice: `lift` picks a shard's files by a stable hash of each path, writes
every output atomically, and with --skip-existing skips the images whose outputs exist. So:
- a shard that exits 0 or 1 is finished (1 means some photos failed; each failure is in its lines
  and final: a broken photo stays broken);
- any other end (a crash, a signal, a usage error) raises, and Dask runs the task again, up to
  --retries times;
- a worker that dies mid-shard takes its `lift` with it (PR_SET_PDEATHSIG) and Dask reschedules
  the task on another worker; the rerun finds the images already written and reports them
  "skipped", the rest "ok".

The merged report (--report) holds one entry per image, the last line any attempt gave for it, and
totals: `done` counts images whose outputs exist (written now or by an earlier attempt);
`lostShards` lists shards that failed after every retry (the driver then exits 1).
"""
import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
import uuid

from dask.distributed import Client, get_worker, wait


def _die_with_parent(libc, parent):
    """In the child, before exec: receive SIGKILL when the worker process `parent` dies (and if it
    already has, end now). `libc` is loaded by the parent: nothing may be loaded between fork and exec."""
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def run_shard(lift, manifest, index, count, out, options):
    """Runs one shard on a worker; returns its JSON lines and where and how long it ran."""
    command = [lift, "--files-from", manifest, "--shard", f"{index}/{count}", "-o", out,
               "--skip-existing", "--json-lines", "-q", *options]
    started = time.monotonic()
    libc, parent = ctypes.CDLL("libc.so.6", use_errno=True), os.getpid()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=lambda: _die_with_parent(libc, parent))
    lines = [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]
    stderr = done.stderr.decode(errors="replace").strip()
    # 0: every image done; 1: some images failed, each in its line. Exit 1 without lines, or with a
    # broken line stream, is a failure of the whole run (no model on this worker, a damaged weight
    # file, standard output lost): raise, so that Dask runs the shard again, elsewhere if it can.
    if done.returncode not in (0, 1) or (done.returncode == 1 and (not lines or "lift: --json-lines:" in stderr)):
        raise RuntimeError(f"shard {index}/{count}: lift exited with {done.returncode}: {stderr[-2000:]}")
    return {"shard": index, "exit": done.returncode, "worker": get_worker().address,
            "seconds": round(time.monotonic() - started, 3), "lines": lines}


def merge(results):
    """One entry per input and the totals. A line saying an input repeats another (`sameFileAs`)
    never replaces that input's own line."""
    images = {}
    for result in sorted(results, key=lambda r: r["shard"]):
        for line in result["lines"]:
            if "sameFileAs" in line and line["input"] in images:
                continue
            images[line["input"]] = line
    entries = [images[name] for name in sorted(images)]
    written = sum(1 for e in entries if e["status"] == "ok")
    earlier = sum(1 for e in entries if e["status"] == "skipped" and "sameFileAs" not in e)
    failed = sum(1 for e in entries if e["status"] == "failed")
    totals = {"images": len(entries), "written": written, "writtenEarlier": earlier, "done": written + earlier,
              "failed": failed, "duplicates": len(entries) - written - earlier - failed}
    shards = [{k: r[k] for k in ("shard", "exit", "worker", "seconds")} | {"images": len(r["lines"])}
              for r in sorted(results, key=lambda r: r["shard"])]
    return {"totals": totals, "shards": shards, "images": entries}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="the scheduler's address, tcp://HOST:PORT")
    where.add_argument("--scheduler-file", help="the file `dask scheduler --scheduler-file` wrote")
    parser.add_argument("--manifest", required=True, help="file listing the photos, one path per line")
    parser.add_argument("--shards", type=int, required=True, help="how many shards (tasks) to split the manifest into")
    parser.add_argument("--out", required=True, help="output directory (the same path on every worker)")
    parser.add_argument("--report", required=True, help="where to write the merged JSON report")
    parser.add_argument("--lift", default=os.path.join(os.path.dirname(__file__), "..", "..", ".build", "release", "lift"),
                        help="the lift binary on the workers (default: this checkout's release build)")
    parser.add_argument("--retries", type=int, default=3, help="runs of a failed shard beyond the first (default 3)")
    parser.add_argument("options", nargs="*", help="more lift options, after --")
    args = parser.parse_args()
    lift, manifest, out = (os.path.abspath(p) for p in (args.lift, args.manifest, args.out))
    os.makedirs(out, exist_ok=True)
    out += "/"  # a directory, whatever one shard's share of the images

    started = time.monotonic()
    job = uuid.uuid4().hex[:8]  # keys of this run only: two drivers on one scheduler do not share results
    with Client(args.scheduler, scheduler_file=args.scheduler_file) as client:
        futures = [client.submit(run_shard, lift, manifest, k, args.shards, out, args.options,
                                 key=f"lift-{job}-shard-{k}-of-{args.shards}", retries=args.retries, pure=False)
                   for k in range(1, args.shards + 1)]
        wait(futures)
        results = [f.result() for f in futures if f.status == "finished"]
        lost = [{"shard": k, "error": repr(f.exception())} for k, f in enumerate(futures, 1) if f.status != "finished"]
    report = merge(results)
    report["lostShards"] = lost
    report["seconds"] = round(time.monotonic() - started, 3)
    with open(args.report + ".tmp", "w") as handle:
        json.dump(report, handle, indent=1, sort_keys=True)
    os.replace(args.report + ".tmp", args.report)
    totals = report["totals"]
    print(f"lift_dask: {totals['images']} images in {args.shards} shards, {totals['done']} done "
          f"({totals['writtenEarlier']} by an earlier attempt), {totals['failed']} failed, {report['seconds']} s", file=sys.stderr)
    for shard in lost:
        print(f"lift_dask: shard {shard['shard']} failed after every retry: {shard['error']}", file=sys.stderr)
    return 1 if totals["failed"] or lost else 0


if __name__ == "__main__":
    sys.exit(main())
