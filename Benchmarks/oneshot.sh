#!/bin/bash
# One-shot CLI runs, side by side: each binary given runs `lift PHOTO -o OUT --json REPORT` on every
# photo, the binaries alternating, ROUNDS times; prints per binary and photo the median wall time of
# the whole process (start-up, model load, every stage) and of its encode stage (from the report),
# and the cut-out's size in bytes.
# usage: Benchmarks/oneshot.sh ROUNDS PHOTO... -- LIFT_BINARY...
# e.g.   Benchmarks/oneshot.sh 7 ../shared/photos/objects/0002-01.jpg -- ../old-checkout/.build/release/lift .build/release/lift
# A binary may be a command split at spaces, such as "env LIFT_WEIGHTS=../other-weights .build/release/lift"
# (the same binary with another weights directory), so paths with spaces do not work here.
set -euo pipefail
rounds=$1; shift
photos=(); while [ "$1" != "--" ]; do photos+=("$1"); shift; done; shift
binaries=("$@")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for photo in "${photos[@]}"; do
  for ((r = 0; r < rounds; r++)); do
    for b in "${!binaries[@]}"; do
      start=$(date +%s%N)
      ${binaries[$b]} "$photo" -o "$work/out.png" --force --quiet --json "$work/report.json"
      end=$(date +%s%N)
      echo $(( (end - start) / 1000000 )) >> "$work/wall.$b"
      stat -c %s "$work/out.png" > "$work/bytes.$b"
      grep -o '"encode" : [0-9.]*' "$work/report.json" | awk '{ print $3 }' >> "$work/encode.$b"
    done
  done
  for b in "${!binaries[@]}"; do
    printf '%-44s %-36s process %6s ms   encode %7s ms   %9s bytes\n' "$(basename "$photo")" "${binaries[$b]}" \
      "$(median < "$work/wall.$b")" "$(median < "$work/encode.$b")" "$(cat "$work/bytes.$b")"
    rm "$work/wall.$b" "$work/encode.$b" "$work/bytes.$b"
  done
done
