#!/usr/bin/env bash
# Fuzzes the PNG, JPEG, GIF and WebP decoders, the weight loader, the ONNX reader and importer, lift serve's request
# parsing and the cut-out command line (arguments and output planning) for a fixed time each and reports
# executions and findings.
#
#   Benchmarks/fuzz.sh [SECONDS]     # default 300 s per target; builds into .build-fuzz/
#
# Corpora start from the committed fixtures (Tests/Fixtures/png, jpeg, gif, webp, graphs, onnx, http, cli) and grow under
# Benchmarks/.work/fuzz/ (ignored). A crash, leak-free timeout or out-of-memory input that
# libFuzzer saves is copied to Tests/Fixtures/fuzz/<target>/ so it can become a regression test,
# and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-300}"
work="Benchmarks/.work/fuzz"
mkdir -p "$work"
for product in fuzz-png fuzz-jpeg fuzz-gif fuzz-webp fuzz-weights fuzz-onnx fuzz-http fuzz-cli; do  # one --product per build: SwiftPM keeps only the last
  LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --scratch-path .build-fuzz --product "$product" 2>&1 | tail -n 1
done
bin="$(LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --scratch-path .build-fuzz --show-bin-path)"

found=0
run() {  # target, max_len, seed directories…
  local target="$1" maxlen="$2"; shift 2
  local corpus="$work/$target-corpus" artifacts="$work/$target-artifacts/"
  [ -x "$bin/$target" ] || { echo "$target: not built" >&2; exit 2; }
  mkdir -p "$corpus" "$artifacts"
  SWIFT_BACKTRACE=enable=no "$bin/$target" -max_total_time="$seconds" -max_len="$maxlen" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "$@" > "$work/$target.log" 2>&1 || true
  local runs rate
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$target.log" | grep -o '[0-9]*$' || echo '?')"
  rate="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/$target.log" | grep -o '[0-9]*$' || echo '?')"
  local rss; rss="$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$work/$target.log" | grep -o '[0-9]*$' || echo '?')"
  local crashes; crashes="$(find "$artifacts" -type f | wc -l)"
  echo "$target: $runs runs in ${seconds} s ($rate exec/s, peak RSS $rss MB), $crashes finding(s)"
  if [ "$crashes" -gt 0 ]; then
    found=1
    mkdir -p "Tests/Fixtures/fuzz/$target"
    cp "$artifacts"* "Tests/Fixtures/fuzz/$target/"
    echo "  copied to Tests/Fixtures/fuzz/$target/ (see $work/$target.log)"
  fi
}
run fuzz-png 65536 Tests/Fixtures/png
run fuzz-jpeg 20000 Tests/Fixtures/jpeg
run fuzz-gif 20000 Tests/Fixtures/gif
run fuzz-webp 65536 Tests/Fixtures/webp
run fuzz-weights 65536 Tests/Fixtures/graphs
run fuzz-onnx 65536 Tests/Fixtures/onnx
run fuzz-http 8192 Tests/Fixtures/http
run fuzz-cli 1024 Tests/Fixtures/cli
exit "$found"
