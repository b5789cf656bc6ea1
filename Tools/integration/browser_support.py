"""What Tools/integration/browser_check.py's checks share: the report, `lift serve` as a process,
direct API requests, the test photos, image comparisons, the headless Chromium and a static file
server for the cross-origin editor page.

Nothing is downloaded at run time: Selenium gets the driver's path and SE_OFFLINE=true.
"""
from __future__ import annotations

import http.server
import io
import json
import os
import queue
import re
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw

os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager fetch a driver or a browser

from selenium import webdriver  # noqa: E402  (after SE_OFFLINE)
from selenium.webdriver.chrome.service import Service  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SERVER_START_TIMEOUT = 60  # seconds for the listening line (the first start loads the weights)
WAIT = 45                  # seconds for any one thing in the browser or on the server
TOKEN = "secret"           # the second server's --token


class Abort(Exception):
    """A failure after which the remaining steps cannot run (`recorded`: already printed as a check)."""

    def __init__(self, message: str, recorded: bool = False) -> None:
        super().__init__(message)
        self.recorded = recorded


class Report:
    """Prints one line per check and counts them; saves screenshots when given a folder."""

    def __init__(self, screenshots: Path | None = None) -> None:
        self.passed = 0
        self.failed = 0
        self.screenshots = screenshots

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"ok    {name}" + (f" ({detail})" if detail else ""), flush=True)
        else:
            self.failed += 1
            print(f"FAIL  {name}: {detail}", flush=True)
        return ok

    def require(self, name: str, ok: bool, detail: str = "") -> None:
        if not self.check(name, ok, detail):
            raise Abort(name, recorded=True)

    @staticmethod
    def note(text: str) -> None:
        print(f"note  {text}", flush=True)

    def screenshot(self, driver: webdriver.Chrome, name: str, from_top: bool = True) -> None:
        """Saves the window as `<name>.png` (scrolled to the top first unless told otherwise)."""
        if self.screenshots is None:
            return
        if from_top:
            driver.execute_script("window.scrollTo(0, 0)")
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / f"{name}.png"
        driver.save_screenshot(str(path))
        self.note(f"screenshot {path}")


# --- the server -----------------------------------------------------------------------------------

class Server:
    """`lift serve --port 0 [extra arguments]`, its URL read from the listening line on standard error."""

    def __init__(self, lift: str, *arguments: str) -> None:
        command = [lift, "serve", "--port", "0", *arguments]
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, errors="replace")
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()  # also keeps the pipe drained
        self.url = self._wait_for_url()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))

    def _wait_for_url(self) -> str:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            self.log.append(line)
            match = re.search(r"listening on (http://\S+)", line)
            if match:
                return match.group(1).rstrip("/")
        exited = self.process.poll()
        self.stop()
        when = f"before it exited with status {exited}" if exited is not None else f"within {SERVER_START_TIMEOUT} s"
        raise Abort(f"no listening line from {' '.join(self.process.args)} {when} "
                    f"(standard error: {' | '.join(self.log[-5:]) or 'nothing'})")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def api(base: str, path: str, body: bytes | None = None, content_type: str = "image/jpeg",
        token: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request straight to the server: (status, headers, body)."""
    request = urllib.request.Request(base + path, data=body, method="POST" if body is not None else "GET")
    if body is not None:
        request.add_header("Content-Type", content_type)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read()


def content_type(photo: Path) -> str:
    return {".png": "image/png", ".webp": "image/webp"}.get(photo.suffix.lower(), "image/jpeg")


def cutout(server: Server, photo: Path, query: str, path: str = "/api/remove",
           token: str | None = None) -> tuple[Image.Image, dict[str, str]]:
    """The server's own answer for `photo` with `query`, decoded (RGBA, or L for a mask)."""
    status, headers, body = api(server.url, f"{path}?{query}", photo.read_bytes(), content_type(photo), token)
    if status != 200:
        raise Abort(f"POST {path}?{query} answered {status}: {body[:300]!r}")
    image = Image.open(io.BytesIO(body))
    return (image.convert("L") if path == "/api/mask" else image.convert("RGBA")), headers


def analyze(server: Server, photo: Path) -> dict:
    status, _, body = api(server.url, "/api/analyze", photo.read_bytes(), content_type(photo))
    if status != 200:
        raise Abort(f"POST /api/analyze answered {status}: {body[:300]!r}")
    return json.loads(body)


# --- photos and pictures --------------------------------------------------------------------------

def make_photo(directory: Path) -> Path:
    """Two separate subjects, a red disc and a blue rounded slab, on a soft grey gradient (1200×900,
    larger than the page shows it, so a click must be scaled to photo pixels)."""
    width, height = 1200, 900
    image = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(image)
    for y in range(height):
        value = round(228 - 30 * y / height)
        draw.line([(0, y), (width, y)], fill=(value, value, value + 12))
    draw.ellipse([130, 260, 510, 640], fill=(205, 45, 40))
    draw.rounded_rectangle([730, 220, 1050, 680], radius=40, fill=(35, 90, 195))
    path = directory / "two-subjects.jpg"
    image.save(path, quality=92)
    return path


def transparent_point(reference: Image.Image) -> tuple[int, int] | None:
    """A corner (else any grid point) that the server's own transparent cut-out leaves clear."""
    w, h = reference.size
    candidates = [(2, 2), (w - 3, 2), (2, h - 3), (w - 3, h - 3)]
    candidates += [(x, y) for y in range(0, h, max(1, h // 16)) for x in range(0, w, max(1, w // 16))]
    return next((p for p in candidates if reference.getpixel(p)[3] == 0), None)


def opaque_point(reference: Image.Image, bbox: list[int]) -> tuple[int, int] | None:
    """The point of a subject's box nearest its centre that the server's cut-out keeps fully opaque."""
    x, y, w, h = bbox
    centre = (x + w // 2, y + h // 2)
    points = [(px, py) for py in range(y, y + h, max(1, h // 24)) for px in range(x, x + w, max(1, w // 24))]
    points.sort(key=lambda p: (p[0] - centre[0]) ** 2 + (p[1] - centre[1]) ** 2)
    return next((p for p in [centre] + points if reference.getpixel(p)[3] == 255), None)


def alpha(image: Image.Image, point: tuple[int, int]) -> int:
    return image.getpixel(point)[3]


def differing_fraction(a: Image.Image, b: Image.Image) -> float:
    """The share of pixels where some channel differs by more than 8 (1.0 for different sizes or modes)."""
    if a.size != b.size or a.mode != b.mode:
        return 1.0
    difference = ImageChops.difference(a, b)
    channels = difference.split()
    largest = channels[0]
    for channel in channels[1:]:
        largest = ImageChops.lighter(largest, channel)
    histogram = largest.histogram()
    return sum(histogram[9:]) / (a.width * a.height)


def alpha_counts(image: Image.Image) -> dict[str, int]:
    """How many pixels are fully transparent, fully opaque and in between."""
    histogram = image.getchannel("A").histogram()
    return {"transparent": histogram[0], "opaque": histogram[255], "partial": sum(histogram[1:255])}


# --- the browser and a second origin --------------------------------------------------------------

def open_browser(chromium: str, chromedriver: str, downloads: Path) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                     "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {
        "download.default_directory": str(downloads),
        "download.prompt_for_download": False,
        "profile.default_content_setting_values.automatic_downloads": 1,
    })
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


class StaticSite:
    """Serves `files` (URL path → (bytes, content type)) on 127.0.0.1 and a port of its own: an
    origin other than the lift server's, as an editor's page would be."""

    def __init__(self, files: dict[str, tuple[bytes, str]]) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                found = files.get(self.path.split("?", 1)[0])
                if found is None:
                    self.send_error(404)
                    return
                body, kind = found
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
