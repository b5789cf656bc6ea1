#!/usr/bin/env python3
"""Replays the server attacks of an adversarial trial against `lift serve` and prints what held.

    python3 Benchmarks/attack.py [--lift .build/release/lift] [--flood 1000] [--address-space-gb 2.15]

Each attack starts its own `lift serve` on a free port (model `person`, so the figures are about the
server, not the model) and reports, in one table:
  heads       8 heads announcing 32 MB bodies and 2 chunked heads, never sending a byte more: does a
              normal upload still get its answer, and how fast;
  flood       FLOOD idle connections over --max-connections 256: /healthz latency during the flood,
              then SIGTERM: seconds to exit against --drain-timeout;
  bombs       three 12000x12000 PNGs (~140 KB each, all zeros) at once to 3 workers under an
              address-space cap (ulimit -v): every answer, whether the server survived, its peak RSS;
  jpeg        a 93 KB progressive JPEG repeating one AC refinement scan 990 times over 16 MP;
  margin      crop=true&margin=6900 on a small photo (a 197 MP canvas before the bound);
  slow body   a body trickling at 1 KB/s: seconds until the server answers.
Only the standard library is used; the files are generated here (nothing is committed).
"""
import argparse
import os
import resource
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib


def png(width, height, rows=None):
    """A grey 8-bit PNG whose rows are zeros (or `rows`, one bytes object per row), compressed hard."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + (rows[y] if rows else bytes(width)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def photo():
    """A 96x96 grey gradient with a darker disc: something to cut out."""
    rows = []
    for y in range(96):
        rows.append(bytes(60 if (x - 48) ** 2 + (y - 48) ** 2 < 900 else 100 + x for x in range(96)))
    return png(96, 96, rows)


def repeated_refinement_jpeg(width=4000, height=4000, repeats=990):
    """A flat grey progressive JPEG whose last AC refinement scan (Ss 1, Se 63, Ah 1, Al 0) repeats."""
    def segment(marker, payload):
        return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload

    blocks = ((width + 7) // 8) * ((height + 7) // 8)

    def data(dc):
        bits = []
        if dc:
            bits = [0] * blocks
        else:
            left = blocks
            while left >= 1 << 14:
                run = min(left, (1 << 15) - 1)
                bits += [1, 0] + [(run - (1 << 14)) >> (13 - i) & 1 for i in range(14)]
                left -= run
            bits += [0] * left
        bits += [1] * (-len(bits) % 8)
        out = bytearray()
        for i in range(0, len(bits), 8):
            byte = int("".join(map(str, bits[i:i + 8])), 2)
            out.append(byte)
            if byte == 0xFF:
                out.append(0)
        return bytes(out)

    def scan(ss, se, ah, al):
        return segment(0xDA, bytes([1, 1, 0, ss, se, ah << 4 | al])) + data(ss == 0)

    body = segment(0xDB, bytes([0]) + bytes([1]) * 64)
    body += segment(0xC2, bytes([8]) + struct.pack(">HH", height, width) + bytes([1, 1, 0x11, 0]))
    body += segment(0xC4, bytes([0x00, 1] + [0] * 15 + [0x00]))
    body += segment(0xC4, bytes([0x10, 1, 1] + [0] * 14 + [0x00, 0xE0]))
    body += scan(0, 0, 0, 1) + scan(0, 0, 1, 0) + scan(1, 63, 0, 1)
    body += scan(1, 63, 1, 0) * (1 + repeats)
    return b"\xFF\xD8" + body + b"\xFF\xD9"


class Server:
    """`lift serve` on a free port, optionally under an address-space cap."""

    def __init__(self, lift, extra=(), address_space=None):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

        def limit():
            if address_space:
                resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        self.process = subprocess.Popen([lift, "serve", "--port", str(self.port), "-m", "person", *extra],
                                        stderr=subprocess.DEVNULL, preexec_fn=limit)
        self.peak_rss_mb = 0.0
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if request(self.port, b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n", timeout=1)[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        self.watching = True
        threading.Thread(target=self.watch, daemon=True).start()

    def watch(self):
        while self.watching and self.process.poll() is None:
            try:
                with open(f"/proc/{self.process.pid}/status") as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            self.peak_rss_mb = max(self.peak_rss_mb, int(line.split()[1]) / 1024)
            except OSError:
                return
            time.sleep(0.05)

    def alive(self):
        return self.process.poll() is None

    def stop(self, timeout=60):
        started = time.time()
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.watching = False
        return code, time.time() - started


def request(port, data, timeout=60):
    """Sends raw bytes and reads one answer: (status, seconds, body)."""
    started = time.time()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(data)
        received = b""
        while b"\r\n\r\n" not in received:
            more = connection.recv(65536)
            if not more:
                break
            received += more
        head, _, body = received.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            more = connection.recv(65536)
            if not more:
                break
            body += more
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    return status, time.time() - started, body


def post(path, body, content_type="application/octet-stream"):
    return (f"POST {path} HTTP/1.1\r\nHost: a\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode() + body


def attack_heads(lift):
    server = Server(lift)
    idle = []
    for index in range(10):
        connection = socket.create_connection(("127.0.0.1", server.port))
        head = "Content-Length: 32000000" if index < 8 else "Transfer-Encoding: chunked"
        connection.sendall(f"POST /api/remove HTTP/1.1\r\nHost: a\r\n{head}\r\n\r\n".encode())
        idle.append(connection)
    time.sleep(0.5)
    status, seconds, _ = request(server.port, post("/api/remove", photo()))
    code, _ = server.stop()
    return f"upload during 8+2 idle heads: {status} in {seconds:.2f} s (server exit {code})"


def attack_flood(lift, count):
    server = Server(lift, ["--drain-timeout", "10"])
    flood = []
    for _ in range(count):
        try:
            flood.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
        except OSError:
            break
    time.sleep(0.5)
    try:
        status, health_seconds, _ = request(server.port, b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n", timeout=30)
    except OSError as error:
        status, health_seconds = f"no answer ({error})", float("nan")
    code, exit_seconds = server.stop(timeout=120)
    for connection in flood:
        connection.close()
    return (f"{len(flood)} idle connections: /healthz {status} in {health_seconds:.3f} s; "
            f"SIGTERM: exit {code} after {exit_seconds:.2f} s (--drain-timeout 10)")


def attack_bombs(lift, address_space_gb):
    bomb = png(12000, 12000)
    cap = int(address_space_gb * 1e9)
    server = Server(lift, ["--workers", "3"], address_space=cap)
    results = [None] * 3

    def send(index):
        try:
            results[index] = request(server.port, post("/api/remove", bomb), timeout=600)[:2]
        except OSError as error:
            results[index] = (f"error {error.__class__.__name__}", 0.0)
    threads = [threading.Thread(target=send, args=(i,)) for i in range(3)]
    started = time.time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    survived = server.alive()
    code, _ = server.stop()
    answers = ", ".join(f"{status} at {seconds:.1f} s" for status, seconds in results)
    return (f"three {len(bomb) // 1000} KB 12000x12000 PNGs under ulimit -v {address_space_gb} GB: {answers}; "
            f"server {'alive' if survived else 'DIED'} after {time.time() - started:.1f} s, peak RSS {server.peak_rss_mb:.0f} MB (exit {code})")


def attack_jpeg(lift):
    bomb = repeated_refinement_jpeg()
    server = Server(lift)
    status, seconds, body = request(server.port, post("/api/analyze", bomb), timeout=600)
    server.stop()
    started = time.time()
    info = subprocess.run([lift, "info", "-"], input=bomb, capture_output=True)
    return (f"{len(bomb) // 1000} KB JPEG, 990 repeated refinement scans: /api/analyze {status} in {seconds:.2f} s; "
            f"lift info exit {info.returncode} in {time.time() - started:.2f} s")


def attack_margin(lift):
    server = Server(lift)
    status, seconds, body = request(server.port, post("/api/remove?crop=true&margin=6900", photo()), timeout=600)
    server.stop()
    return f"crop=true&margin=6900 on a 96x96 photo: {status} in {seconds:.2f} s, {len(body)} bytes"


def attack_slow_body(lift):
    server = Server(lift)
    started = time.time()
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as connection:
        connection.sendall(b"POST /api/remove HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\n")
        connection.settimeout(0.5)
        answer = b""
        while time.time() - started < 40 and not answer:
            try:
                connection.sendall(b"x" * 500)
                answer = connection.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                break
    server.stop()
    status = answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/") else "none"
    return f"a body at 1 KB/s: answered {status} after {time.time() - started:.1f} s (--read-timeout 30)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lift", default=".build/release/lift")
    parser.add_argument("--flood", type=int, default=1000)
    parser.add_argument("--address-space-gb", type=float, default=2.15)
    parser.add_argument("--only", nargs="*", default=["heads", "flood", "bombs", "jpeg", "margin", "slow"])
    arguments = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    attacks = {"heads": lambda: attack_heads(arguments.lift), "flood": lambda: attack_flood(arguments.lift, arguments.flood),
               "bombs": lambda: attack_bombs(arguments.lift, arguments.address_space_gb), "jpeg": lambda: attack_jpeg(arguments.lift),
               "margin": lambda: attack_margin(arguments.lift), "slow": lambda: attack_slow_body(arguments.lift)}
    for name in arguments.only:
        print(f"{name:7} {attacks[name]()}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
