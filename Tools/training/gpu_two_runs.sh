#!/usr/bin/env bash
# Runs on a lent GPU machine (the `device` tool; Tools/training/README.md, "On a lent GPU"):
# two configurations of liftpy.training.train_subject_gpu side by side on the whole pack, from the
# shipped file, and copies their EMA snapshots and logs to $OUT, as the last of four calls (three
# carry the pack):
#   bash Tools/training/gpu_two_runs.sh 7.7
# $1 = minutes of training for each run (both share the GPU; each fits its schedule to its own pace).
# $CODE = the Tools folder to install liftpy from (default Tools; a frozen copy under Tools/.pack/
# keeps a run safe from edits made here while the parts travel). The device's python3 has torch and
# setuptools but cannot fetch anything, so the package is installed from that folder alone.
# Files back are limited to 8 and 64 MiB in all: six 15-MB snapshots are too many for one call, so
# fetch the rest (Tools/.pack/runs/B/snap-*.pt, ignored) with a second call while the machine is warm.
set -u
MIN=$1
CODE=${CODE:-Tools}
runs=Tools/.pack/runs
mkdir -p "$runs"
ls -la Tools/.pack/*/duts-tr.npz
python3 -m pip install --quiet --no-deps --no-build-isolation --no-index --target Tools/.pack/liftpy "$CODE" || exit 1
export PYTHONPATH="$PWD/Tools/.pack/liftpy"
common="--pack Tools/.pack --init Weights/subject.safetensors --minutes $MIN --zoom-in-p 0.25 --paste-p 0.25 --encoder-lr-scale 0.3 --snapshots 0.5 0.75 1.0 --no-raw"
PYTHONUNBUFFERED=1 python3 -m liftpy.training.train_subject_gpu $common --lr 2.5e-4 --seed 1 --out "$runs/A" > "$runs/A.log" 2>&1 &
PYTHONUNBUFFERED=1 python3 -m liftpy.training.train_subject_gpu $common --lr 8e-4 --seed 2 --out "$runs/B" > "$runs/B.log" 2>&1 &
wait
for r in A B; do for f in "$runs/$r"/snap-*.pt; do cp "$f" "$OUT/$r-$(basename "$f")"; done; done
tar -C "$runs" -cf "$OUT/logs.tar" A.log B.log $(cd "$runs" && ls A/gpu-train.json B/gpu-train.json 2>/dev/null)
cat "$runs/A.log" "$runs/B.log"
