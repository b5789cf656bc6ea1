#!/usr/bin/env python3
"""Load on `lift serve`: throughput and latency against `lift DIR` batch throughput, overload, RSS soak.

    .venv/bin/python Benchmarks/serve_load.py [--lift PATH] [--photos DIR] [--clients 1,2,8,64]
                                              [--seconds 20] [--soak-requests 10000] [--out FILE.md]

The server's load goals: throughput near `lift DIR`'s, p99 bounded under overload, RSS flat over a
soak. Photos: 8 real photos from `../shared/photos/` (beside the repository,
never committed), centre-cropped to 4:3 and resized with Pillow to 1152×864 (or 864×1152),
≈ 1 MP, JPEG quality 90, in a temporary directory; `--photos DIR` takes DIR's PNG/JPEG files as
they are instead. Then:

1. Baseline: `lift DIR -o OUT --force --quiet` (batch mode, default options) on the photos copied
   enough times for the batch to run ≥ `--seconds` → photos/s (wall time of the whole command).
2. `lift serve --port 0 --log-format json` (default options: workers = cores, queue 32), warmed
   up, then Debian's `wrk` POSTing the photos in turn (a generated Lua script) to `/api/remove`
   for `--seconds` at each client count. wrk's latency covers every answer (503s too); the p50/p99
   of the 200s alone come from the server's JSON access log (first request byte to last answer
   byte). Between runs the script waits for the server's queue to empty (`/metrics`).
3. `--workers 1 --threads 2` and `--workers 2 --threads 1` at 8 clients (one photo at a time with
   every core in it vs one core per photo), beside the default.
4. Soak: a fresh default server, `--soak-requests` requests from 8 Python `http.client`
   keep-alive clients (an exact count, which wrk cannot do), the server's VmRSS sampled every
   second from /proc.
5. Each server's `/metrics` request counts against what the clients saw.

Prints a Markdown report (and writes it to `--out`); progress goes to standard error.
Needs `swift build -c release --product lift`, `apt-get install wrk` and Pillow in `.venv`.
"""
import argparse
import http.client
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SHARED_PHOTOS = os.path.join(ROOT, "..", "shared", "photos")
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png")
PHOTO_COUNT = 8
TARGET = (1152, 864)  # 995,328 px, the 4:3 size nearest 1 MP
SOAK_CLIENTS = 8
VARIANTS = [("default (workers = cores, threads = cores)", []),
            ("--workers 1 --threads 2", ["--workers", "1", "--threads", "2"]),
            ("--workers 2 --threads 1", ["--workers", "2", "--threads", "1"])]


def log(message):
    print(f"[serve_load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- photos

def make_photos(directory):
    """The PHOTO_COUNT largest photos of ../shared/photos (its sub-directories in turn), at ≈ 1 MP."""
    from PIL import Image

    if not os.path.isdir(SHARED_PHOTOS):
        sys.exit(f"serve_load: no {os.path.relpath(SHARED_PHOTOS)} (the shared real photos); pass --photos DIR")
    groups = []
    for current, folders, files in sorted(os.walk(SHARED_PHOTOS)):
        folders.sort()
        sized = []
        for name in sorted(files):
            if not name.lower().endswith(IMAGE_EXTENSIONS):
                continue
            path = os.path.join(current, name)
            try:
                with Image.open(path) as image:
                    sized.append((image.size[0] * image.size[1], path))
            except OSError:
                continue
        if sized:
            groups.append([path for _, path in sorted(sized, key=lambda item: (-item[0], item[1]))])
    chosen = []
    while len(chosen) < PHOTO_COUNT and any(groups):
        for group in groups:
            if group and len(chosen) < PHOTO_COUNT:
                chosen.append(group.pop(0))
    photos = []
    for index, source in enumerate(chosen):
        with Image.open(source) as image:
            image = image.convert("RGB")
            width, height = image.size
            target_w, target_h = TARGET if width >= height else TARGET[::-1]
            if width * target_h > height * target_w:  # too wide: crop the sides
                kept = height * target_w // target_h
                image = image.crop(((width - kept) // 2, 0, (width - kept) // 2 + kept, height))
            else:
                kept = width * target_h // target_w
                image = image.crop((0, (height - kept) // 2, width, (height - kept) // 2 + kept))
            image = image.resize((target_w, target_h), Image.LANCZOS)
            stem = os.path.splitext(os.path.basename(source))[0][:40]
            path = os.path.join(directory, f"{index + 1:02d}-{stem}.jpg")
            image.save(path, quality=90)
            photos.append(path)
    return photos, [os.path.relpath(path, os.path.join(SHARED_PHOTOS)) for path in chosen]


def photo_sizes(paths):
    from PIL import Image

    sizes = []
    for path in paths:
        with Image.open(path) as image:
            sizes.append(image.size)
    return sizes


def content_type(path):
    return "image/png" if path.lower().endswith(".png") else "image/jpeg"


# ---------------------------------------------------------------- batch baseline

def batch_baseline(lift, photos, seconds, scratch):
    """photos/s of `lift DIR -o OUT --force --quiet` over the photos repeated to run ≥ seconds."""
    def run(copies):
        inputs = tempfile.mkdtemp(prefix="batch-in-", dir=scratch)
        outputs = tempfile.mkdtemp(prefix="batch-out-", dir=scratch)
        for copy in range(copies):
            for path in photos:
                stem, extension = os.path.splitext(os.path.basename(path))
                shutil.copyfile(path, os.path.join(inputs, f"{stem}-{copy:04d}{extension}"))
        command = [lift, inputs, "-o", outputs, "--force", "--quiet"]
        started = time.monotonic()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        elapsed = time.monotonic() - started
        written = len(os.listdir(outputs))
        shutil.rmtree(inputs)
        shutil.rmtree(outputs)
        if written != copies * len(photos):
            sys.exit(f"serve_load: the batch wrote {written} cut-outs for {copies * len(photos)} photos")
        return elapsed, written

    elapsed, count = run(2)  # calibration (and the page cache); start-up makes it pessimistic, hence the margin
    copies = max(1, math.ceil(seconds * 1.3 * count / elapsed / len(photos)))
    log(f"batch: calibration {count} photos in {elapsed:.2f} s; now {copies} × {len(photos)} photos")
    elapsed, count = run(copies)
    log(f"batch: {count} photos in {elapsed:.1f} s = {count / elapsed:.2f} photos/s")
    return {"photos": count, "seconds": elapsed, "rate": count / elapsed}


# ---------------------------------------------------------------- the server

class Server:
    """`lift serve --port 0 --log-format json` with its standard error in a file (the access log)."""

    def __init__(self, lift, extra, scratch):
        self.arguments = ["serve", "--port", "0", "--log-format", "json"] + extra
        self.log_path = os.path.join(scratch, f"serve-{time.monotonic_ns()}.log")
        self.log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen([lift] + self.arguments, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=self.log_file)
        self.exit_status = None
        deadline = time.monotonic() + 120
        while True:
            with open(self.log_path, "rb") as file:
                text = file.read().decode("utf-8", "replace")
            match = re.search(r"lift serve: listening on http://([^\s]+):(\d+) \(([^)]*)\)", text)
            if match:
                self.host, self.port, self.banner = match.group(1).strip("[]"), int(match.group(2)), match.group(3)
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                sys.exit(f"serve_load: lift serve did not start:\n{text}")
            time.sleep(0.05)
        self.pid = self.process.pid

    def log_offset(self):
        return os.path.getsize(self.log_path)

    def access_lines(self, start, end=None):
        with open(self.log_path, "rb") as file:
            file.seek(start)
            data = file.read() if end is None else file.read(end - start)
        lines = []
        for raw in data.splitlines():
            if raw.startswith(b"{"):
                try:
                    lines.append(json.loads(raw))
                except ValueError:
                    pass
        return lines

    def get(self, path):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read().decode("utf-8", "replace")
        finally:
            connection.close()

    def metrics(self):
        status, text = self.get("/metrics")
        if status != 200:
            raise ValueError(f"/metrics answered {status}")
        values = {"requests": {}}
        for line in text.splitlines():
            match = re.match(r'lift_http_requests_total\{endpoint="([^"]+)",status="(\d+)"\} (\d+)', line)
            if match:
                values["requests"].setdefault(match.group(1), {})[int(match.group(2))] = int(match.group(3))
                continue
            match = re.match(r"(lift_\w+) (\d+)$", line)
            if match:
                values[match.group(1)] = int(match.group(2))
        return values

    def wait_idle(self, timeout=120):
        """Until no photo is queued or in work (wrk leaves requests behind when it stops)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                values = self.metrics()
            except (OSError, http.client.HTTPException, ValueError):
                values = None  # refused while lingering connections close
            if values and values.get("lift_queue_depth", 0) == 0 and values.get("lift_in_flight", 0) == 0:
                return
            time.sleep(0.2)
        log("warning: the server stayed busy after the run")

    def rss(self):
        """(VmRSS, VmHWM) in KiB."""
        values = {}
        try:
            with open(f"/proc/{self.pid}/status") as file:
                for line in file:
                    if line.startswith(("VmRSS:", "VmHWM:")):
                        values[line.split(":")[0]] = int(line.split()[1])
        except OSError:
            pass
        return values.get("VmRSS", 0), values.get("VmHWM", 0)

    def threads(self):
        try:
            with open(f"/proc/{self.pid}/status") as file:
                for line in file:
                    if line.startswith("Threads:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.exit_status = self.process.returncode
        self.log_file.close()


def post(connection, body, kind):
    connection.request("POST", "/api/remove", body=body, headers={"Content-Type": kind})
    response = connection.getresponse()
    response.read()
    return response.status


def warm_up(server, photos, bodies):
    """Each photo once, from `workers` clients at a time (the first requests set up buffers)."""
    statuses = []
    workers = 2
    match = re.search(r"(\d+) at once", server.banner)
    if match:
        workers = int(match.group(1))

    def client(paths):
        connection = http.client.HTTPConnection(server.host, server.port, timeout=120)
        try:
            for path in paths:
                statuses.append(post(connection, bodies[path], content_type(path)))
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(photos[index::workers],)) for index in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if any(status != 200 for status in statuses):
        sys.exit(f"serve_load: warm-up answers {statuses}")
    return len(statuses)


# ---------------------------------------------------------------- wrk

LUA = r"""
-- Generated by Benchmarks/serve_load.py: POST the photos in turn to /api/remove, count statuses.
local paths = { %(paths)s }
local types = { %(types)s }
local requests = {}
local next_request = 0
n200, n503, n503conn, nother = 0, 0, 0, 0
other_statuses = ""

function init(args)
   for index, path in ipairs(paths) do
      local file = assert(io.open(path, "rb"))
      local body = file:read("*a")
      file:close()
      requests[index] = wrk.format("POST", "/api/remove", { ["Content-Type"] = types[index] }, body)
   end
   -- each thread starts at a different photo
   local address = tostring(wrk.thread):match("0x(%%x+)")
   if address then math.randomseed(tonumber(address:sub(-6), 16)) end
   next_request = math.random(#requests) - 1
end

function request()
   next_request = next_request %% #requests + 1
   return requests[next_request]
end

function response(status, headers, body)
   if status == 200 then
      n200 = n200 + 1
   elseif status == 503 then
      n503 = n503 + 1
      -- refused at --max-connections (from the accept loop) rather than by the full queue
      if body and body:find("connections open", 1, true) then n503conn = n503conn + 1 end
   else
      nother = nother + 1
      if #other_statuses < 200 then other_statuses = other_statuses .. status .. " " end
   end
end

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function done(summary, latency, requests_)
   local t200, t503, t503conn, tother, others = 0, 0, 0, 0, ""
   for _, thread in ipairs(threads) do
      t200 = t200 + thread:get("n200")
      t503 = t503 + thread:get("n503")
      t503conn = t503conn + thread:get("n503conn")
      tother = tother + thread:get("nother")
      others = others .. thread:get("other_statuses")
   end
   local e = summary.errors
   io.write(string.format(
      'SERVE_LOAD_JSON {"duration_us": %%d, "requests": %%d, "bytes": %%d, ' ..
      '"connect_errors": %%d, "read_errors": %%d, "write_errors": %%d, "status_errors": %%d, "timeouts": %%d, ' ..
      '"n200": %%d, "n503": %%d, "n503conn": %%d, "nother": %%d, "other_statuses": "%%s", ' ..
      '"p50_us": %%d, "p90_us": %%d, "p99_us": %%d, "max_us": %%d, "mean_us": %%.1f}\n',
      summary.duration, summary.requests, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout,
      t200, t503, t503conn, tother, others,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
"""


def write_lua(directory, photos):
    def quoted(text):
        return "[==[" + text + "]==]"

    script = LUA % {"paths": ", ".join(quoted(path) for path in photos),
                    "types": ", ".join(quoted(content_type(path)) for path in photos)}
    path = os.path.join(directory, "post_photos.lua")
    with open(path, "w") as file:
        file.write(script)
    return path


def run_wrk(wrk, lua, server, clients, seconds):
    threads = max(1, min(clients, os.cpu_count() or 1))
    command = [wrk, "-t", str(threads), "-c", str(clients), "-d", f"{seconds}s", "--timeout", "60s",
               "-s", lua, f"http://{server.host}:{server.port}/api/remove"]
    start = server.log_offset()
    rss_samples, thread_samples, connection_samples, queue_samples = [], [], [], []
    scrape_refused = 0
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while process.poll() is None:
        rss_samples.append(server.rss()[0])
        thread_samples.append(server.threads())
        try:
            values = server.metrics()
            connection_samples.append(values.get("lift_connections_open", 0))
            queue_samples.append(values.get("lift_queue_depth", 0))
        except (OSError, http.client.HTTPException, ValueError):
            scrape_refused += 1  # e.g. refused at --max-connections
        time.sleep(0.5)
    output, errors = process.communicate()
    match = re.search(r"SERVE_LOAD_JSON (\{.*\})", output)
    if process.returncode != 0 or not match:
        sys.exit(f"serve_load: wrk failed ({process.returncode}):\n{output}\n{errors}")
    result = json.loads(match.group(1))
    server.wait_idle()
    time.sleep(0.3)  # the last access-log lines
    lines = [line for line in server.access_lines(start) if line.get("target", "").startswith("/api/remove")]
    durations = sorted(line["duration_ms"] for line in lines if line.get("status") == 200)
    result["server_200"] = len(durations)
    result["server_statuses"] = count_statuses(lines)
    result["server_p50_ms"] = percentile(durations, 50)
    result["server_p99_ms"] = percentile(durations, 99)
    result["server_max_ms"] = durations[-1] if durations else None
    result["server_errors"] = count_statuses([line for line in server.access_lines(start)
                                              if not line.get("target", "").startswith("/metrics")
                                              and line.get("status") not in (200, 503)])
    result["rss_max_kib"] = max(rss_samples + [server.rss()[0]])
    result["threads_max"] = max(thread_samples + [server.threads()])
    result["connections_max"] = max(connection_samples, default=None)
    result["queue_max"] = max(queue_samples, default=None)
    result["scrapes"] = len(connection_samples) + scrape_refused
    result["scrape_refused"] = scrape_refused
    result["seconds"] = result["duration_us"] / 1e6
    result["rate"] = result["n200"] / result["seconds"]
    result["clients"] = clients
    result["wrk_threads"] = threads
    return result


def count_statuses(lines):
    counts = {}
    for line in lines:
        counts[line.get("status")] = counts.get(line.get("status"), 0) + 1
    return dict(sorted(counts.items()))


def percentile(sorted_values, p):
    """Nearest rank."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


# ---------------------------------------------------------------- soak

def soak(server, photos, bodies, total, clients):
    lock = threading.Lock()
    issued = [0]
    done = [0]
    latencies = []
    statuses = {}
    failures = []
    finished = threading.Event()
    samples = []  # (seconds, requests done, VmRSS KiB)
    started = time.monotonic()

    def client(first):
        connection = None
        index = first
        while True:
            with lock:
                if issued[0] >= total:
                    break
                issued[0] += 1
            path = photos[index % len(photos)]
            index += 1
            began = time.monotonic()
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(server.host, server.port, timeout=120)
                status = post(connection, bodies[path], content_type(path))
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                if connection is not None:
                    connection.close()
                connection = None
            elapsed = time.monotonic() - began
            with lock:
                done[0] += 1
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200:
                    latencies.append(elapsed)
                elif len(failures) < 5:
                    failures.append(status)
        if connection is not None:
            connection.close()

    def sampler():
        next_report = 0.1
        while not finished.is_set():
            with lock:
                count = done[0]
            samples.append((time.monotonic() - started, count, server.rss()[0]))
            if count >= next_report * total:
                log(f"soak: {count}/{total} requests, VmRSS {samples[-1][2] / 1024:.0f} MiB")
                next_report += 0.1
            finished.wait(1.0)

    before_rss = server.rss()[0]
    watcher = threading.Thread(target=sampler)
    watcher.start()
    threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    finished.set()
    watcher.join()
    samples.append((elapsed, done[0], server.rss()[0]))

    def rss_at(fraction):
        for seconds, count, rss in samples:
            if count >= fraction * total:
                return rss, count
        return samples[-1][2], samples[-1][1]

    latencies.sort()
    return {"requests": done[0], "seconds": elapsed, "rate": statuses.get(200, 0) / elapsed,
            "statuses": dict(sorted(statuses.items(), key=lambda item: str(item[0]))), "failures": failures,
            "p50_ms": percentile(latencies, 50) * 1000 if latencies else None,
            "p99_ms": percentile(latencies, 99) * 1000 if latencies else None,
            "max_ms": latencies[-1] * 1000 if latencies else None,
            "rss_before": before_rss, "rss10": rss_at(0.10), "rss50": rss_at(0.50), "rss100": (samples[-1][2], samples[-1][1]),
            "rss_max": max(rss for _, _, rss in samples), "hwm": server.rss()[1], "samples": len(samples)}


# ---------------------------------------------------------------- report

def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as file:
            for line in file:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "?"
    try:
        with open("/proc/meminfo") as file:
            kib = int(file.readline().split()[1])
            memory = f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores (nproc {nproc()}), {model}, {memory} RAM, {platform.system()} {platform.release()}"


def nproc():
    try:
        return subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def ms(value):
    return "–" if value is None else f"{value:.0f}"


def mib(kib):
    return f"{kib / 1024:.0f}"


def statuses_text(counts):
    return ", ".join(f"{status}: {count}" for status, count in counts.items()) or "none"


def report(context, baseline, sweep, variants, soak_result, metrics_checks):
    out = []
    add = out.append
    add("## `lift serve` load (Benchmarks/serve_load.py)")
    add("")
    add(f"- command: `{context['command']}`")
    add(f"- date: {context['date']}")
    add(f"- machine: {context['machine']}; load average before the run: {context['load']}")
    add(f"- lift: `{context['version']}` (`{context['lift']}`); wrk: `{context['wrk_version']}`")
    add(f"- photos: {context['photos']}")
    add(f"- server: `lift serve --port 0 --log-format json` + the variant's options; {context['banner']}")
    add("")
    add("### Batch baseline: `lift DIR -o OUT --force --quiet`")
    add("")
    add("| photos | wall s | photos/s |")
    add("|---:|---:|---:|")
    add(f"| {baseline['photos']} | {baseline['seconds']:.1f} | **{baseline['rate']:.2f}** |")
    add("")
    add(f"### Default server, wrk for {context['seconds']} s per client count (POST /api/remove)")
    add("")
    add("Latency columns: wrk's, over every answer (503s included); *200s* columns: the server's access log "
        "for the 200s only (first request byte to last answer byte). RSS, threads (the server's), open connections and "
        "queue depth (`/metrics` gauges): the largest of the samples taken every 0.5 s during the run; a scrape refused "
        "means `/metrics` itself got no answer (the server at `--max-connections`). wrk sends the next request as soon as "
        "an answer arrives; it ignores `Retry-After`.")
    add("")
    add("| clients | 200/s | % of batch | p50 ms | p99 ms | max ms | 200s p50 ms | 200s p99 ms | 200s | 503s | other non-200 | socket errors | RSS MiB | threads | open conns | queue |")
    add("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in sweep:
        add(row(r, baseline))
    add("")
    add(f"### Workers × threads at 8 clients ({context['seconds']} s each, a fresh server each)")
    add("")
    add("| server options | 200/s | % of batch | p50 ms | p99 ms | max ms | 200s | 503s | other non-200 | socket errors | RSS MiB |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in variants:
        add(f"| {name} | {r['rate']:.2f} | {100 * r['rate'] / baseline['rate']:.0f} % | {ms(r['p50_us'] / 1000)} | "
            f"{ms(r['p99_us'] / 1000)} | {ms(r['max_us'] / 1000)} | {r['n200']} | {refusals(r)} | {others(r)} | "
            f"{socket_errors(r)} | {mib(r['rss_max_kib'])} |")
    if variants:
        best = max(variants, key=lambda item: item[1]["rate"])
        add("")
        add(f"Best throughput at 8 clients: **{best[0]}** ({best[1]['rate']:.2f}/s).")
    if soak_result:
        s = soak_result
        growth = s["rss100"][0] - s["rss10"][0]
        add("")
        add(f"### Soak: {s['requests']} requests, {SOAK_CLIENTS} keep-alive clients (Python http.client), fresh default server")
        add("")
        add("| requests | s | 200/s | p50 ms | p99 ms | max ms | statuses | RSS before | RSS at 10 % | at 50 % | at 100 % | max | VmHWM | growth 10 %→100 % |")
        add("|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        add(f"| {s['requests']} | {s['seconds']:.0f} | {s['rate']:.2f} | {ms(s['p50_ms'])} | {ms(s['p99_ms'])} | {ms(s['max_ms'])} | "
            f"{statuses_text(s['statuses'])} | {mib(s['rss_before'])} MiB | {mib(s['rss10'][0])} MiB | {mib(s['rss50'][0])} MiB | "
            f"{mib(s['rss100'][0])} MiB | {mib(s['rss_max'])} MiB | {mib(s['hwm'])} MiB | "
            f"{growth / 1024:+.1f} MiB ({100 * growth / max(1, s['rss10'][0]):+.1f} %) |")
        add("")
        add(f"RSS sampled every second ({s['samples']} samples); \"at N %\" is the first sample after N % of the requests "
            f"had been answered. {'Flat' if abs(growth) <= 0.05 * s['rss10'][0] else 'NOT flat'} "
            f"(growth within ±5 % between 10 % and 100 % counts as flat)."
            + (f" Failures seen: {s['failures']}." if s["failures"] else ""))
    add("")
    add("### Against issue 37's goals")
    add("")
    for line in goals(context, baseline, sweep, soak_result):
        add(f"- {line}")
    add("")
    add("### `/metrics` cross-check (`lift_http_requests_total` before each server stopped: /api/remove by status, other endpoints named; /metrics scrapes left out)")
    add("")
    add("| server | /metrics by status | clients saw (warm-up + runs) | access log | exit status |")
    add("|---|---|---|---|---:|")
    for check in metrics_checks:
        add(f"| {check['name']} | {statuses_text(check['metrics'])} | {statuses_text(check['clients'])} | "
            f"{statuses_text(check['log'])} | {check['exit']} |")
    add("")
    add("wrk stops at its deadline with requests still in work or queued; the server finishes and counts them, so "
        "/metrics and the access log may exceed what wrk counted by up to the number of clients per run. A larger "
        "difference means answers that did not reach the client that asked (a connection refused at "
        "`--max-connections` is answered from the accept loop and counted as `other` 503, with no request line); "
        "`other` 400/431 (no request line) and 499s (client gone) mean a connection's bytes went astray.")
    return "\n".join(out) + "\n"


def goals(context, baseline, sweep, soak_result):
    lines = []
    if sweep:
        percent = {r["clients"]: 100 * r["rate"] / baseline["rate"] for r in sweep}
        met = [str(c) for c, value in percent.items() if value >= 95]
        missed = [str(c) for c, value in percent.items() if value < 95]
        lines.append(f"throughput ≥ 95 % of batch ({baseline['rate']:.2f} photos/s): "
                     + ", ".join(f"{c} clients {value:.0f} %" for c, value in percent.items())
                     + f" — met at {', '.join(met) or 'none'}" + (f"; not at {', '.join(missed)}" if missed else ""))
    for r in sweep:
        if r["clients"] > context["workers"] + context["queue"] and r["rate"] > 0:
            bound = (context["workers"] + context["queue"]) / r["rate"]
            lines.append(f"overload ({r['clients']} clients > {context['workers']} workers + {context['queue']} queued): "
                         f"{refusals(r)} × 503, 200s p99 {ms(r['server_p99_ms'])} ms, max {ms(r['server_max_ms'])} ms against "
                         f"(workers + queue) / throughput = {bound * 1000:.0f} ms of queue; peak RSS {mib(r['rss_max_kib'])} MiB")
    bad = [f"{r['clients']} clients: wrk saw {others(r)} other non-200 and socket errors {socket_errors(r)}; "
           f"the server's access log has {statuses_text(r['server_errors'])} (statuses other than 200 and 503)"
           for r in sweep if r["nother"] or socket_errors(r) != "0" or r["server_errors"]]
    lines.append("errors other than 503: " + ("none" if not bad else "; ".join(bad)))
    if soak_result:
        growth = soak_result["rss100"][0] - soak_result["rss10"][0]
        lines.append(f"RSS over {soak_result['requests']} requests: {mib(soak_result['rss10'][0])} → "
                     f"{mib(soak_result['rss100'][0])} MiB from 10 % to 100 % ({growth / 1024:+.1f} MiB), max "
                     f"{mib(soak_result['rss_max'])} MiB")
    return lines


def refusals(r):
    if r["n503conn"]:
        return f"{r['n503']} ({r['n503conn']} at --max-connections)"
    return str(r["n503"])


def others(r):
    text = str(r["nother"])
    if r["other_statuses"].strip():
        text += f" ({r['other_statuses'].strip()})"
    return text


def socket_errors(r):
    parts = [f"{name} {r[key]}" for name, key in (("connect", "connect_errors"), ("read", "read_errors"),
                                                   ("write", "write_errors"), ("timeout", "timeouts")) if r[key]]
    return ", ".join(parts) or "0"


def row(r, baseline):
    return (f"| {r['clients']} | {r['rate']:.2f} | {100 * r['rate'] / baseline['rate']:.0f} % | {ms(r['p50_us'] / 1000)} | "
            f"{ms(r['p99_us'] / 1000)} | {ms(r['max_us'] / 1000)} | {ms(r['server_p50_ms'])} | {ms(r['server_p99_ms'])} | "
            f"{r['n200']} | {refusals(r)} | {others(r)} | {socket_errors(r)} | {mib(r['rss_max_kib'])} | {r['threads_max']} | "
            f"{gauge(r['connections_max'], r)} | {gauge(r['queue_max'], None)} |")


def gauge(value, r):
    text = "–" if value is None else str(value)
    if r is not None and r["scrape_refused"]:
        text += f" ({r['scrape_refused']}/{r['scrapes']} scrapes refused)"
    return text


# ---------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--lift", default=os.path.join(ROOT, ".build", "release", "lift"), help="the lift binary")
    parser.add_argument("--photos", help="a directory of PNG/JPEG photos to send as they are (default: 8 of ../shared/photos at 1 MP)")
    parser.add_argument("--clients", default="1,2,8,64", help="client counts for the wrk runs (default 1,2,8,64)")
    parser.add_argument("--seconds", type=int, default=20, help="seconds per wrk run, and the batch's least duration (default 20)")
    parser.add_argument("--soak-requests", type=int, default=10000, help="requests in the RSS soak; 0 skips it (default 10000)")
    parser.add_argument("--out", help="also write the Markdown report to this file")
    args = parser.parse_args()

    lift = os.path.abspath(args.lift)
    if not os.access(lift, os.X_OK):
        sys.exit(f"serve_load: no lift binary at {lift}; build it with `swift build -c release --product lift`")
    wrk = shutil.which("wrk")
    if not wrk:
        sys.exit("serve_load: wrk is not installed (apt-get install -y wrk)")
    clients = [int(value) for value in args.clients.split(",") if value.strip()]
    command = " ".join(shlex.quote(part) for part in [os.path.relpath(sys.executable, ROOT) if sys.executable.startswith(ROOT) else sys.executable,
                                                       os.path.relpath(os.path.abspath(__file__), ROOT)] + sys.argv[1:])
    context = {
        "command": command,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": machine(),
        "load": open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else "?",
        "version": subprocess.run([lift, "--version"], capture_output=True, text=True).stdout.strip(),
        "lift": os.path.relpath(lift, ROOT) if lift.startswith(ROOT) else lift,
        "wrk_version": (subprocess.run([wrk, "--version"], capture_output=True, text=True).stdout.strip().splitlines() or ["?"])[0],
        "seconds": args.seconds,
    }
    context["load"] = " ".join(context["load"]) if isinstance(context["load"], list) else context["load"]

    scratch = tempfile.mkdtemp(prefix="lift-serve-load-")
    servers = []
    try:
        if args.photos:
            photos = sorted(os.path.join(args.photos, name) for name in os.listdir(args.photos)
                            if name.lower().endswith(IMAGE_EXTENSIONS))
            if not photos:
                sys.exit(f"serve_load: no PNG/JPEG photos in {args.photos}")
            sources = [os.path.basename(path) for path in photos]
        else:
            photo_dir = os.path.join(scratch, "photos")
            os.mkdir(photo_dir)
            photos, sources = make_photos(photo_dir)
        sizes = photo_sizes(photos)
        total_bytes = sum(os.path.getsize(path) for path in photos)
        context["photos"] = (f"{len(photos)} ({', '.join(f'{w}×{h}' for w, h in sorted(set(sizes)))}; "
                             f"mean {sum(w * h for w, h in sizes) / len(sizes) / 1e6:.2f} MP, "
                             f"{total_bytes / len(photos) / 1024:.0f} KiB each on average"
                             + ("" if args.photos else "; JPEG q90 made at run time from ../shared/photos: " + ", ".join(sources))
                             + ")")
        log(f"photos: {context['photos']}")
        bodies = {}
        for path in photos:
            with open(path, "rb") as file:
                bodies[path] = file.read()
        lua = write_lua(scratch, photos)

        baseline = batch_baseline(lift, photos, args.seconds, scratch)

        metrics_checks = []

        def finish(name, server, client_counts):
            values = server.metrics()
            server_metrics = dict(sorted(values["requests"].get("/api/remove", {}).items()))
            for endpoint, counts in sorted(values["requests"].items()):
                if endpoint not in ("/api/remove", "/metrics"):
                    for status, count in sorted(counts.items()):
                        server_metrics[f"{endpoint} {status}"] = count
            time.sleep(0.3)
            log_counts = count_statuses([line for line in server.access_lines(0)
                                         if line.get("target", "").startswith("/api/remove")])
            server.stop()
            metrics_checks.append({"name": name, "metrics": server_metrics, "clients": dict(sorted(client_counts.items(), key=lambda item: str(item[0]))),
                                   "log": log_counts, "exit": server.exit_status})

        def add_counts(counts, r):
            for status, key in ((200, "n200"), (503, "n503"), ("other", "nother")):
                if r[key]:
                    counts[status] = counts.get(status, 0) + r[key]

        # The client sweep on one default server.
        server = Server(lift, [], scratch)
        servers.append(server)
        context["banner"] = server.banner
        match = re.search(r"(\d+) at once, (\d+) queued", server.banner)
        context["workers"], context["queue"] = (int(match.group(1)), int(match.group(2))) if match else (os.cpu_count() or 1, 32)
        log(f"server (default): {server.banner}, pid {server.pid}")
        seen = {200: warm_up(server, photos, bodies)}
        sweep = []
        for count in clients:
            log(f"wrk: {count} clients for {args.seconds} s")
            result = run_wrk(wrk, lua, server, count, args.seconds)
            add_counts(seen, result)
            log(f"wrk: {count} clients: {result['rate']:.2f} 200/s, p99 {result['p99_us'] / 1000:.0f} ms, "
                f"503s {result['n503']}, other {result['nother']}")
            sweep.append(result)
        finish("default (sweep)", server, seen)

        # Workers × threads at 8 clients.
        variants = []
        default_8 = next((r for r in sweep if r["clients"] == 8), None)
        for name, extra in VARIANTS:
            if not extra and default_8 is not None:
                variants.append((name + ", from the sweep", default_8))
                continue
            server = Server(lift, extra, scratch)
            servers.append(server)
            log(f"server ({name}): {server.banner}")
            seen = {200: warm_up(server, photos, bodies)}
            result = run_wrk(wrk, lua, server, 8, args.seconds)
            add_counts(seen, result)
            log(f"wrk: {name}: {result['rate']:.2f} 200/s")
            variants.append((name, result))
            finish(name, server, seen)

        # Soak.
        soak_result = None
        if args.soak_requests > 0:
            server = Server(lift, [], scratch)
            servers.append(server)
            log(f"soak: {args.soak_requests} requests at {SOAK_CLIENTS} clients, pid {server.pid}")
            warmed = warm_up(server, photos, bodies)
            soak_result = soak(server, photos, bodies, args.soak_requests, SOAK_CLIENTS)
            seen = dict(soak_result["statuses"])
            seen[200] = seen.get(200, 0) + warmed
            finish("soak", server, seen)

        text = report(context, baseline, sweep, variants, soak_result, metrics_checks)
        print(text, end="")
        if args.out:
            with open(args.out, "w") as file:
                file.write(text)
            log(f"wrote {args.out}")
    finally:
        for server in servers:
            if server.exit_status is None:
                server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
