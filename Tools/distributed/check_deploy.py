#!/usr/bin/env python3
"""Checks the container image and the Kubernetes Indexed Job in Tools/distributed/deploy/ without a
container runtime or a cluster (neither exists here).

    swift build -c release --static-swift-stdlib --scratch-path .build-static
    .venv/bin/python -m liftpy.distributed.check_deploy [--binary .build-static/release/lift]

- Containerfile: every COPY source exists; the files are laid out in a scratch directory exactly as
  the image would hold them, and the binary run from there (with no LIFT_WEIGHTS) cuts out a photo
  with the weights in the image's Weights/ (shown by a run that fails naming them once the image's
  SHA256SUMS is made wrong); `ldd` lists only
  libraries the base image has (glibc, libstdc++, libgcc_s, zlib).
- lift-indexed-job.yaml, read with a YAML parser: an Indexed Job whose completions equal SHARDS;
  its shell line, evaluated for every JOB_COMPLETION_INDEX, gives shards 1/N … N/N, each once; the
  command is the image's binary with --files-from, --skip-existing and --json-lines.
Exit 0 when everything holds; each failure is printed.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "Tools", "distributed", "deploy")
# What debian:trixie-slim provides of what a static-stdlib Swift binary links.
BASE_LIBRARIES = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1",
                  "ld-linux-x86-64.so.2", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1"}


def containerfile_copies(path):
    """(sources, destination) of each COPY line, and the ENTRYPOINT's program."""
    copies, entrypoint = [], None
    for line in open(path):
        words = line.split()
        if words[:1] == ["COPY"]:
            copies.append((words[1:-1], words[-1]))
        elif words[:1] == ["ENTRYPOINT"]:
            entrypoint = yaml.safe_load(line.split(None, 1)[1])[0]
    return copies, entrypoint


def check_image(binary, failures):
    copies, entrypoint = containerfile_copies(os.path.join(DEPLOY, "Containerfile"))
    with tempfile.TemporaryDirectory(prefix="lift-image-") as image:
        for sources, destination in copies:
            for source in sources:
                local = binary if source == ".build/release/lift" else os.path.join(ROOT, source)
                if not os.path.isfile(local):
                    failures.append(f"Containerfile copies {source}, which does not exist ({local})")
                    continue
                target = os.path.join(image, destination.lstrip("/"))
                target = os.path.join(target, os.path.basename(source)) if destination.endswith("/") else target
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(local, target)
        program = os.path.join(image, entrypoint.lstrip("/"))
        listing = sorted(os.path.relpath(os.path.join(d, f), image) for d, _, fs in os.walk(image) for f in fs)
        print("check_deploy: image files: " + ", ".join(listing), file=sys.stderr)
        if not os.access(program, os.X_OK):
            failures.append(f"the ENTRYPOINT {entrypoint} is not an executable file in the image")
            return
        libraries = re.findall(r"^\s*(\S+)", subprocess.run(["ldd", program], capture_output=True, text=True).stdout, re.M)
        extra = sorted(os.path.basename(lib) for lib in libraries if os.path.basename(lib) not in BASE_LIBRARIES)
        if extra:
            failures.append(f"the binary needs libraries the base image lacks: {extra} (build with --static-swift-stdlib)")
        environment = {k: v for k, v in os.environ.items() if k != "LIFT_WEIGHTS"}
        photo = os.path.join(ROOT, "Tests", "Fixtures", "examples", "astronaut.jpg")
        run = subprocess.run([program, photo, "-o", os.path.join(image, "cutout.png"), "-q"], env=environment,
                             capture_output=True, text=True)
        if run.returncode != 0 or not os.path.isfile(os.path.join(image, "cutout.png")):
            failures.append(f"the image's binary could not cut out a photo: {run.stderr.strip()}")
        # Which weights did it load? With the image's SHA256SUMS made wrong it must fail naming them.
        sums = os.path.join(image, "opt", "lift", "Weights", "SHA256SUMS")
        with open(sums) as handle:
            lines = handle.read()
        with open(sums, "w") as handle:
            handle.write(re.sub(r"^[0-9a-f]{64}(?=  subject\.safetensors)", "0" * 64, lines, flags=re.M))
        probe = subprocess.run([program, photo, "-o", os.path.join(image, "probe.png"), "-q"], env=environment,
                               capture_output=True, text=True)
        if os.path.join(image, "opt", "lift", "Weights", "subject.safetensors") not in probe.stderr:
            failures.append(f"the image's binary did not load the image's Weights/: {probe.stderr.strip() or 'it ran'}")


def check_job(failures):
    job = yaml.safe_load(open(os.path.join(DEPLOY, "lift-indexed-job.yaml")))
    spec = job.get("spec", {})
    if job.get("kind") != "Job" or spec.get("completionMode") != "Indexed":
        failures.append("lift-indexed-job.yaml is not an Indexed Job")
        return
    container = spec["template"]["spec"]["containers"][0]
    if spec["template"]["spec"].get("restartPolicy") != "Never":
        failures.append("restartPolicy must be Never (a retried index gets a new pod)")
    shards = int({e["name"]: e["value"] for e in container.get("env", [])}.get("SHARDS", "0"))
    if shards != spec.get("completions"):
        failures.append(f"SHARDS ({shards}) differs from completions ({spec.get('completions')})")
    line = " ".join(container["args"])
    words = shlex.split(line.replace('"$((JOB_COMPLETION_INDEX + 1))/$SHARDS"', "K/N"))
    _, entrypoint = containerfile_copies(os.path.join(DEPLOY, "Containerfile"))
    if words[:1] != [entrypoint]:
        failures.append(f"the job runs {words[:1]}, not the image's {entrypoint}")
    # Exit 0 and 1 (some photos failed, each reported) must end the pod successfully, others not.
    for code, expected in ((0, 0), (1, 0), (2, 2), (137, 137)):
        script = f"stub() {{ return {code}; }}; " + line.replace(entrypoint, "stub", 1)
        ended = subprocess.run(["/bin/sh", "-c", script], env={"JOB_COMPLETION_INDEX": "0", "SHARDS": str(shards)}).returncode
        if ended != expected:
            failures.append(f"when lift exits {code} the pod's command exits {ended}, not {expected}")
    for flag in ("--files-from", "--skip-existing", "--json-lines", "--shard"):
        if flag not in words:
            failures.append(f"the job's lift line lacks {flag}")
    # The shell turns each index into a shard: evaluate it as the pod's /bin/sh would.
    expression = re.search(r'--shard ("[^"]*")', line).group(1)
    given = [subprocess.run(["/bin/sh", "-c", f"echo {expression}"], capture_output=True, text=True,
                            env={"JOB_COMPLETION_INDEX": str(index), "SHARDS": str(shards)}).stdout.strip()
             for index in range(spec["completions"])]
    if given != [f"{k}/{shards}" for k in range(1, shards + 1)]:
        failures.append(f"indices 0…{spec['completions'] - 1} give shards {given}, not 1/N … N/N")
    print(f"check_deploy: job: {spec['completions']} indices → shards {given[0]} … {given[-1]}, "
          f"parallelism {spec.get('parallelism')}, backoffLimitPerIndex {spec.get('backoffLimitPerIndex')}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-static", "release", "lift"),
                        help="the static build to stand for .build/release/lift (default .build-static/release/lift)")
    args = parser.parse_args()
    failures = []
    check_image(os.path.abspath(args.binary), failures)
    check_job(failures)
    for failure in failures:
        print("check_deploy: FAILED: " + failure, file=sys.stderr)
    if not failures:
        print("check_deploy: the image's files, libraries and layout and the Indexed Job hold", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
