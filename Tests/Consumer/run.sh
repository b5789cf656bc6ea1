#!/usr/bin/env bash
# Depends on Lift by version, as another package would, and runs the README's library example.
#
#   Tests/Consumer/run.sh            # build the consumer (release, CPU flags passed), run the example
#   Tests/Consumer/run.sh --measure  # also time a cut-out built with and without the CPU flags
#
# It clones this repository's HEAD into a scratch directory, tags the clone 2.7.0 (this version) and builds
# Tests/Consumer/Package.swift against it with `.package(url: "file://…", from: "2.0.0")`, which is
# what SwiftPM refuses when a versioned dependency carries unsafe flags. The consumer passes the CPU
# target itself (`-Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLIFT_FMA`, and `-DLIFT_AVX512` on an
# AVX-512 CPU, as docs/library.md says). ~2 min on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
measure=false
[ "${1:-}" = "--measure" ] && measure=true
scratch="$(mktemp -d "${TMPDIR:-/tmp}/lift-consumer.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

git clone -q "$root" "$scratch/Lift"
git -C "$scratch/Lift" -c user.name=ci -c user.email=ci@localhost tag 2.7.0
mkdir -p "$scratch/Consumer/Sources/ReadmeExample" "$scratch/out"
cp "$root/Tests/Consumer/Package.swift" "$scratch/Consumer/"
cp -r "$root/Tests/Consumer/Sources/TimedCutout" "$scratch/Consumer/Sources/"
# ReadmeExample: the README's first Swift block as it is, after the two names it leaves to the reader.
{
  echo "import Lift"
  echo "let photoPath = CommandLine.arguments[1], outputDirectory = CommandLine.arguments[2]"
  awk '/^```swift$/ && !done { inside = 1; next } /^```$/ && inside { inside = 0; done = 1 } inside && !/^import Lift$/' "$root/README.md"
} > "$scratch/Consumer/Sources/ReadmeExample/main.swift"

export LIFT_PACKAGE_URL="file://$scratch/Lift"
cd "$scratch/Consumer"
flags=(-Xswiftc -target-cpu -Xswiftc native)
grep -qw fma /proc/cpuinfo && flags+=(-Xswiftc -DLIFT_FMA)
grep -qw avx512f /proc/cpuinfo && flags+=(-Xswiftc -DLIFT_AVX512)
swift build -c release "${flags[@]}" 2>&1 | tail -n 2
photo="$root/Tests/Fixtures/examples/astronaut.jpg"
"$(swift build -c release "${flags[@]}" --show-bin-path)/ReadmeExample" "$photo" "$scratch/out"
for file in cutout.png picked.png picked.mask.png; do
  [ -s "$scratch/out/$file" ] || { echo "consumer: the README example wrote no $file" >&2; exit 1; }
done
echo "consumer: Lift 2.7.0 by version (from: "2.0.0"): README example ran, wrote cutout.png, picked.png, picked.mask.png"

if $measure; then
  # Side by side on one photo: the consumer built with the CPU flags, without them, and `lift`.
  horse="${LIFT_MEASURE_PHOTO:-$root/Tests/Fixtures/examples/astronaut.jpg}"
  flagged="$("$(swift build -c release "${flags[@]}" --show-bin-path)/TimedCutout" "$horse" "$scratch/out" 10)"
  rm -rf .build
  swift build -c release 2>&1 | tail -n 1
  plain="$("$(swift build -c release --show-bin-path)/TimedCutout" "$horse" "$scratch/out" 3)"
  echo "consumer TimedCutout (analyse + cut out on white + write, best of runs): with ${flags[*]} ${flagged} ms, without ${plain} ms"
fi
