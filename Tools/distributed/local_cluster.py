"""A real Dask distributed cluster on this machine (one scheduler and worker processes over TCP on
127.0.0.1, each started by the `dask` command as an operator would), and seeded test photos; used by
`cluster_check.py` and `Benchmarks/distributed_bench.py`."""
import os
import random
import signal
import struct
import subprocess
import sys
import time
import zlib

from dask.distributed import Client

DASK = os.path.join(os.path.dirname(sys.executable), "dask")


class LocalCluster:
    """`dask scheduler` plus `workers` × `dask worker` (one process, one thread each: `lift` runs
    its own threads), every one in its own process group so that one can be killed whole."""

    def __init__(self, directory, workers):
        self.directory = directory
        self.scheduler_file = os.path.join(directory, "scheduler.json")
        self.logs = []
        self.workers = []
        self.client = None
        self.scheduler = self._start([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", self.scheduler_file], "scheduler")
        try:
            deadline = time.monotonic() + 60
            while not os.path.exists(self.scheduler_file):
                if time.monotonic() > deadline or self.scheduler.poll() is not None:
                    raise RuntimeError("the dask scheduler did not start; see " + self.logs[0])
                time.sleep(0.1)
            self.workers = [self._start_worker(i) for i in range(workers)]
            self.client = Client(scheduler_file=self.scheduler_file)
            self.client.wait_for_workers(workers, timeout=120)
            self.address = self.client.scheduler.address
        except BaseException:
            self.close()  # no scheduler or worker outlives a failed start
            raise

    def _start(self, command, name):
        log = os.path.join(self.directory, name + ".log")
        self.logs.append(log)
        with open(log, "w") as handle:  # the child keeps its own descriptor
            return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)

    def _start_worker(self, index):
        return self._start([DASK, "worker", "--scheduler-file", self.scheduler_file, "--nworkers", "1", "--nthreads", "1",
                            "--no-dashboard", "--name", f"w{index}"], f"worker-{index}")

    def busy_worker_pid(self, timeout=120):
        """The process group and name of a worker running a task now (waits for one up to `timeout` s)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            processing = self.client.processing()
            info = self.client.scheduler_info()["workers"]
            for address, tasks in processing.items():
                if tasks and address in info:
                    name = info[address]["name"]
                    return self.workers[int(str(name).lstrip("w"))].pid, name
            time.sleep(0.05)
        raise TimeoutError("no worker was running a task")

    def kill(self, pid):
        """SIGKILL a worker's whole process group (its nanny, the worker and the `lift` it runs)."""
        os.killpg(pid, signal.SIGKILL)

    def close(self):
        try:
            if self.client is not None:
                self.client.close()
        finally:
            for process in self.workers + [self.scheduler]:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            for process in self.workers + [self.scheduler]:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)


def _png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def make_photos(directory, count, seed=0, width=320, height=240):
    """`count` seeded RGB PNGs: a shaded background and one or two filled ellipses (a subject to find),
    `photo-0000.png`…; returns their paths."""
    rng = random.Random(seed)
    os.makedirs(directory, exist_ok=True)
    paths = []
    for index in range(count):
        background = [rng.randrange(40, 220) for _ in range(3)]
        shapes = []
        for _ in range(rng.choice((1, 1, 2))):
            shapes.append((rng.uniform(0.3, 0.7) * width, rng.uniform(0.3, 0.7) * height,
                           rng.uniform(0.12, 0.3) * width, rng.uniform(0.15, 0.35) * height,
                           bytes(rng.randrange(256) for _ in range(3))))
        rows = []
        for y in range(height):
            shade = bytes(max(0, min(255, c + (y * 40) // height - 20)) for c in background)
            row = bytearray(shade * width)
            for cx, cy, rx, ry, colour in shapes:
                dy = (y - cy) / ry
                if abs(dy) < 1:
                    half = rx * (1 - dy * dy) ** 0.5
                    x0, x1 = max(0, int(cx - half)), min(width, int(cx + half))
                    row[3 * x0:3 * x1] = colour * (x1 - x0)
            rows.append(bytes(row))
        path = os.path.join(directory, f"photo-{index:04d}.png")
        with open(path, "wb") as handle:
            handle.write(_png(width, height, rows))
        paths.append(path)
    return paths
