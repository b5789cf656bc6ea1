#!/usr/bin/env python3
"""Checks `lift serve`'s web page (Sources/LiftServer/Page/index.html) in a real headless Chromium.

Starts `lift serve --port 0` itself, opens the page, uploads a photo through `#file-input`, and
checks the PNGs the page's Download button saves, pixel by pixel with Pillow: the cut-out over a
transparent, white, coloured and blurred background, a click on one subject (which must remove the
other, and must become the right photo pixel at the shown scale), "All subjects", a click beside
the subjects (the server's message, the image kept), a dropped and a pasted photo (as DragEvent and
ClipboardEvent); then a second server with `--token`, at a phone's width: the page asks for the
token and the upload succeeds with it. Every downloaded PNG is also compared with the API's own
answer for the same options, and the browser console must hold no errors (CSP violations included).

The photo is made at run time: two well-separated, differently coloured shapes on a gradient, which
the subject model finds as two subjects. If the server finds fewer, the check falls back to
Tests/Fixtures/examples/astronaut.jpg and says that it skips the two-subject part.

Usage, from the repository root:

    .venv/bin/python -m liftpy.integration.browser_check [--lift PATH] [--photo PATH]

--lift is any executable that takes `serve --port 0 [--token T]` and prints
`lift serve: listening on http://HOST:PORT` to standard error (default: $LIFT_BIN, else
.build/release/lift). Prints one line per check; exits 1 if any failed.

Needs: PyPI selenium==4.50.0 and pillow==13.0.0 (Tools/requirements.txt), and Debian's Chromium and
its driver (`apt-get install -y chromium chromium-driver`: /usr/bin/chromium, /usr/bin/chromedriver).
Nothing is downloaded at run time: Selenium gets the driver's path and SE_OFFLINE=true.
"""
from __future__ import annotations

import argparse
import base64
import io
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw

os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager fetch a driver or a browser

from selenium import webdriver  # noqa: E402  (after SE_OFFLINE)
from selenium.common.exceptions import TimeoutException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FALLBACK_PHOTO = ROOT / "Tests" / "Fixtures" / "examples" / "astronaut.jpg"
SERVER_START_TIMEOUT = 60  # seconds for the listening line (the first start loads the weights)
WAIT = 30                  # seconds for any one thing in the browser or on the server
TOKEN = "secret"
PAGE_IDS = ["file-input", "drop-zone", "result", "status", "subject-count", "all-subjects", "bg-transparent",
            "bg-white", "bg-color", "bg-blur", "download", "token"]


class Abort(Exception):
    """A failure after which the remaining steps cannot run (`recorded`: already printed as a check)."""

    def __init__(self, message: str, recorded: bool = False) -> None:
        super().__init__(message)
        self.recorded = recorded


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

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


# --- the server -----------------------------------------------------------------------------------

class Server:
    """`lift serve --port 0`, its URL read from the listening line on standard error."""

    def __init__(self, lift: str, token: str | None = None) -> None:
        command = [lift, "serve", "--port", "0"] + (["--token", token] if token else [])
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


def cutout(server: Server, photo: Path, query: str) -> tuple[Image.Image, dict[str, str]]:
    status, headers, body = api(server.url, f"/api/remove?{query}", photo.read_bytes(), content_type(photo))
    if status != 200:
        raise Abort(f"POST /api/remove?{query} answered {status}: {body[:300]!r}")
    return Image.open(io.BytesIO(body)).convert("RGBA"), headers


def content_type(photo: Path) -> str:
    return "image/png" if photo.suffix.lower() == ".png" else "image/jpeg"


# --- the photo ------------------------------------------------------------------------------------

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


def analyze(server: Server, photo: Path) -> dict:
    status, _, body = api(server.url, "/api/analyze", photo.read_bytes(), content_type(photo))
    if status != 200:
        raise Abort(f"POST /api/analyze answered {status}: {body[:300]!r}")
    return json.loads(body)


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


def differing_fraction(a: Image.Image, b: Image.Image) -> float:
    """The share of pixels where some channel differs by more than 8."""
    if a.size != b.size:
        return 1.0
    difference = ImageChops.difference(a.convert("RGBA"), b.convert("RGBA"))
    channels = difference.split()
    largest = channels[0]
    for channel in channels[1:]:
        largest = ImageChops.lighter(largest, channel)
    histogram = largest.histogram()
    return sum(histogram[9:]) / (a.width * a.height)


# --- the browser ----------------------------------------------------------------------------------

def open_browser(chromium: str, chromedriver: str, downloads: Path) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,800"]:
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


class Page:
    """The page in the browser, and waits on what it shows."""

    def __init__(self, driver: webdriver.Chrome, report: Report, downloads: Path, photo: Path) -> None:
        self.driver, self.report, self.downloads, self.photo = driver, report, downloads, photo

    def element(self, id_: str):
        return self.driver.find_element(By.ID, id_)

    def text(self, id_: str) -> str:
        return self.element(id_).text.strip()

    def requests_finished(self) -> int:
        return int(self.element("result").get_attribute("data-request") or 0)

    def act(self, name: str, action, expect: str = "done") -> None:
        """Runs `action` (which starts one request) and waits until #result says it finished."""
        before = self.requests_finished()
        action()
        result = self.element("result")
        try:
            WebDriverWait(self.driver, WAIT).until(
                lambda _: self.requests_finished() > before and result.get_attribute("data-state") in ("done", "error"))
        except TimeoutException:
            raise Abort(f"{name}: #result not done within {WAIT} s (data-state {result.get_attribute('data-state')!r}, "
                        f"status {self.text('status')!r})") from None
        state = result.get_attribute("data-state")
        self.report.require(name, state == expect, f"data-state {state!r}, status {self.text('status')!r}")

    def download(self, name: str, stem: str | None = None) -> Image.Image:
        """Clicks #download and returns the PNG it saved (as `<stem>.cutout.png`), decoded."""
        for old in self.downloads.iterdir():
            old.unlink()
        expected = self.downloads / f"{stem or self.photo.stem}.cutout.png"
        self.element("download").click()
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            files = list(self.downloads.iterdir())
            if expected.exists() and not any(f.suffix == ".crdownload" for f in files):
                try:
                    image = Image.open(expected)
                    image.load()
                    return image.convert("RGBA")
                except OSError:
                    pass  # still being written
            time.sleep(0.1)
        raise Abort(f"{name}: no {expected.name} downloaded within {WAIT} s (found {[f.name for f in files]})")

    def click_photo_point(self, point: tuple[int, int]) -> None:
        """Clicks the shown cut-out where it shows the photo's pixel `point`."""
        image = self.element("result")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", image)
        natural = self.driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", image)
        shown = image.size
        dx = (point[0] + 0.5) * shown["width"] / natural[0] - shown["width"] / 2
        dy = (point[1] + 0.5) * shown["height"] / natural[1] - shown["height"] / 2
        ActionChains(self.driver).move_to_element_with_offset(image, round(dx), round(dy)).click().perform()

    def hand_over(self, how: str, name: str) -> None:
        """Gives the page the photo as a file named `name` the way a drop or a paste does (a
        DragEvent or ClipboardEvent carrying it, as the browser would dispatch)."""
        self.driver.execute_script("""
            const [base64, name, type, how] = arguments;
            const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
            const data = new DataTransfer();
            data.items.add(new File([bytes], name, {type}));
            const options = {bubbles: true, cancelable: true};
            const event = how === 'drop' ? new DragEvent('drop', {...options, dataTransfer: data})
                                         : new ClipboardEvent('paste', {...options, clipboardData: data});
            (how === 'drop' ? document.getElementById('drop-zone') : document.body).dispatchEvent(event);
        """, base64.b64encode(self.photo.read_bytes()).decode(), name, content_type(self.photo), how)


def alpha(image: Image.Image, point: tuple[int, int]) -> int:
    return image.getpixel(point)[3]


def check_download(page: Page, report: Report, name: str, reference: Image.Image, stem: str | None = None) -> Image.Image:
    image = page.download(name, stem)
    share = differing_fraction(image, reference)
    report.check(f"{name}: download equals the API's answer", share < 0.005,
                 f"{share:.2%} of pixels differ from POST /api/remove with the same options")
    return image


# --- the checks -----------------------------------------------------------------------------------

def check_page_source(server: Server, report: Report) -> None:
    status, headers, body = api(server.url, "/")
    html = body.decode("utf-8", "replace")
    report.require("GET / answers the page", status == 200 and "text/html" in headers.get("Content-Type", ""),
                   f"status {status}, Content-Type {headers.get('Content-Type')!r}")
    external = re.findall(r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//[^"'\s>]*|url\(\s*["']?(?:https?:)?//[^)]*|@import""",
                          html, re.IGNORECASE)
    report.check("the page loads nothing from elsewhere", not external, f"found {external[:3]}")
    missing = [i for i in PAGE_IDS if f'id="{i}"' not in html]
    report.check("the page has every id the checks use", not missing, f"missing {missing}")


def check_main(server: Server, driver: webdriver.Chrome, report: Report, photo: Path, downloads: Path) -> None:
    analysis = analyze(server, photo)
    subjects = analysis.get("subjects", [])
    with Image.open(photo) as image:
        photo_size = image.size
    report.require("/api/analyze finds a subject", len(subjects) >= 1 and (analysis.get("width"), analysis.get("height")) == photo_size,
                   f"{len(subjects)} subject(s) in a {analysis.get('width')}×{analysis.get('height')} analysis of a "
                   f"{photo_size[0]}×{photo_size[1]} photo")
    reference, _ = cutout(server, photo, "background=transparent")
    corner = transparent_point(reference)
    inside = [opaque_point(reference, s["bbox"]) for s in subjects]
    report.require("the API's cut-out has a clear point and an opaque point in each subject",
                   corner is not None and None not in inside, f"clear {corner}, opaque {inside}")

    page = Page(driver, report, downloads, photo)
    driver.get(server.url + "/")
    report.require("the page opens", "Lift" in driver.title, f"title {driver.title!r}")
    page.act("upload through #file-input", lambda: page.element("file-input").send_keys(str(photo)))
    count = page.text("subject-count")
    report.check("#subject-count shows the number of subjects", str(len(subjects)) in count, f"{count!r}")

    image = check_download(page, report, "transparent", reference)
    report.check("transparent: the download has the photo's size", image.size == photo_size, f"{image.size}")
    report.check("transparent: the clear point is fully transparent", alpha(image, corner) == 0,
                 f"{image.getpixel(corner)} at {corner}")
    report.check("transparent: every subject is opaque", all(alpha(image, p) == 255 for p in inside),
                 f"{[image.getpixel(p) for p in inside]} at {inside}")

    page.act("#bg-white", lambda: page.element("bg-white").click())
    image = check_download(page, report, "white", cutout(server, photo, "background=white")[0])
    report.check("white: the clear point is white", image.getpixel(corner) == (255, 255, 255, 255), f"{image.getpixel(corner)}")

    page.act("#bg-color", lambda: driver.execute_script(
        "const input = arguments[0]; input.value = '#00ff00'; input.dispatchEvent(new Event('change', {bubbles: true}))",
        page.element("bg-color")))
    image = check_download(page, report, "colour", cutout(server, photo, "background=%2300ff00")[0])
    report.check("colour: the clear point is #00ff00", image.getpixel(corner) == (0, 255, 0, 255), f"{image.getpixel(corner)}")

    page.act("#bg-blur", lambda: page.element("bg-blur").click())
    image = check_download(page, report, "blur", cutout(server, photo, "background=blur")[0])
    report.check("blur: the clear point is opaque photo", alpha(image, corner) == 255 and image.getpixel(corner)[:3] not in
                 [(255, 255, 255), (0, 255, 0)], f"{image.getpixel(corner)}")

    page.act("#bg-transparent", lambda: page.element("bg-transparent").click())
    image = page.download("transparent again")
    report.check("transparent again: the clear point is transparent", alpha(image, corner) == 0, f"{image.getpixel(corner)}")

    shown = driver.execute_script("const r = document.getElementById('result');"
                                  "return r.getBoundingClientRect().width / r.naturalWidth")
    if len(subjects) < 2:
        report.note(f"the photo has {len(subjects)} subject; the two-subject part (click one, the other disappears, "
                    "All subjects) is SKIPPED")
    else:
        check_subject_click(server, page, report, photo, subjects, inside, shown)

    # A click beside every subject: the server's message, the image kept.
    kept_src = page.element("result").get_attribute("src")
    status, _, body = api(server.url, f"/api/remove?at={corner[0]},{corner[1]}", photo.read_bytes(), content_type(photo))
    expected = json.loads(body).get("message", "") if status == 422 else ""
    report.check("the API answers 422 with a message for a point beside the subjects", status == 422 and bool(expected),
                 f"status {status}, body {body[:200]!r}")
    page.act("click beside the subjects", lambda: page.click_photo_point(corner), expect="error")
    message = page.text("status")
    same = re.sub(r"\d+", "#", message) == re.sub(r"\d+", "#", expected)
    report.check("#status shows the server's message", bool(expected) and same, f"{message!r} vs {expected!r}")
    report.check("the previous cut-out stays shown", page.element("result").get_attribute("src") == kept_src)

    # The other two ways in: a drop on #drop-zone and a paste.
    page.act("drop a photo", lambda: page.hand_over("drop", f"dropped{photo.suffix}"))
    check_download(page, report, "dropped (saved as dropped.cutout.png)", reference, stem="dropped")
    page.act("paste a photo", lambda: page.hand_over("paste", f"pasted{photo.suffix}"))
    count = page.text("subject-count")
    report.check("pasted: #subject-count shows the number of subjects", str(len(subjects)) in count, f"{count!r}")


def check_subject_click(server: Server, page: Page, report: Report, photo: Path, subjects: list[dict],
                        inside: list[tuple[int, int]], shown: float) -> None:
    target, other = inside[-1], inside[0]  # the smallest subject, and the largest
    reference, headers = cutout(server, photo, f"background=transparent&at={target[0]},{target[1]}")
    report.require("the API keeps one subject for a point in the smallest",
                   headers.get("X-Lift-Kept") == "1" and alpha(reference, target) == 255 and alpha(reference, other) == 0,
                   f"X-Lift-Kept {headers.get('X-Lift-Kept')}, alpha {alpha(reference, target)} and {alpha(reference, other)}")
    page.act(f"click on subject {subjects[-1]['number']} (shown at {shown:.2f}× its size)",
             lambda: page.click_photo_point(target))
    sent = page.element("result").get_attribute("data-at") or ""
    tolerance = 1 / shown + 1  # one CSS pixel is 1/shown photo pixels
    report.check("the click becomes the right photo pixel", bool(re.fullmatch(r"\d+,\d+", sent)) and all(
        abs(int(v) - t) <= tolerance for v, t in zip(sent.split(","), target)), f"at={sent} for {target[0]},{target[1]}")
    image = check_download(page, report, "one subject", reference)
    report.check("one subject: the clicked subject is opaque", alpha(image, target) == 255, f"{image.getpixel(target)} at {target}")
    report.check("one subject: the other subject is transparent", alpha(image, other) == 0, f"{image.getpixel(other)} at {other}")
    count = page.text("subject-count")
    report.check("#subject-count shows 1 of the subjects", count.startswith("1 ") and str(len(subjects)) in count, f"{count!r}")
    report.check("#all-subjects is enabled", page.element("all-subjects").is_enabled())

    page.act("#all-subjects", lambda: page.element("all-subjects").click())
    image = page.download("all subjects")
    report.check("all subjects: both subjects opaque again", alpha(image, target) == 255 and alpha(image, other) == 255,
                 f"{image.getpixel(target)}, {image.getpixel(other)}")


def check_token(lift: str, driver: webdriver.Chrome, report: Report, photo: Path, downloads: Path) -> None:
    server = Server(lift, token=TOKEN)
    try:
        report.check("with --token: GET / is public", api(server.url, "/")[0] == 200)
        status = api(server.url, "/api/remove", photo.read_bytes(), content_type(photo))[0]
        report.check("with --token: the API answers 401 without the token", status == 401, f"status {status}")
        driver.set_window_size(390, 844)  # a phone
        page = Page(driver, report, downloads, photo)
        driver.get(server.url + "/")
        overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        report.check("at a phone's width nothing overflows sideways", overflow <= 0, f"{overflow} px too wide")
        token = page.element("token")
        report.check("#token is hidden before any 401", not token.is_displayed())
        page.act("upload without the token", lambda: page.element("file-input").send_keys(str(photo)), expect="error")
        report.require("the 401 reveals #token", token.is_displayed(), f"status {page.text('status')!r}")
        page.act("typing the token", lambda: token.send_keys(TOKEN + Keys.ENTER))
        stored = driver.execute_script("return sessionStorage.getItem('lift-token')")
        report.check("the token is kept in sessionStorage", stored == TOKEN, f"{stored!r}")
        image = page.download("with the token")
        with Image.open(photo) as original:
            report.check("with the token: the download is the cut-out", image.size == original.size, f"{image.size}")
    finally:
        server.stop()


def check_console(driver: webdriver.Chrome, report: Report) -> None:
    """No script errors or policy violations; the expected 401 and 422 answers are logged, and fine."""
    try:
        entries = driver.get_log("browser")
    except WebDriverException as error:
        report.note(f"the browser's console log is not readable ({error.msg}); not checked")
        return
    errors = [e["message"] for e in entries if e.get("level") == "SEVERE"
              and not re.search(r"status of (401|422)", e["message"])]
    report.check("no errors in the browser console", not errors, "; ".join(errors[:3]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lift", default=os.environ.get("LIFT_BIN") or str(ROOT / ".build" / "release" / "lift"),
                        help="the lift executable (default: $LIFT_BIN, else .build/release/lift)")
    parser.add_argument("--photo", type=Path, help="a photo to use instead of the generated two-subject one")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args()

    report = Report()
    started = time.monotonic()
    server = driver = None
    with tempfile.TemporaryDirectory(prefix="lift-browser-check-") as temporary:
        work = Path(temporary)
        downloads = work / "downloads"
        downloads.mkdir()
        try:
            if not os.access(args.lift, os.X_OK):
                raise Abort(f"no executable at {args.lift}: build it (swift build -c release) or pass --lift")
            photo = args.photo.resolve() if args.photo else make_photo(work)
            server = Server(args.lift)
            report.check("lift serve starts", True, server.url)
            if not args.photo:
                found = len(analyze(server, photo).get("subjects", []))
                if found < 2:
                    report.note(f"the server finds {found} subject(s) in the generated photo, not 2; using "
                                f"{FALLBACK_PHOTO.relative_to(ROOT)} instead, and the two-subject part is SKIPPED")
                    photo = FALLBACK_PHOTO
            check_page_source(server, report)
            driver = open_browser(args.chromium, args.chromedriver, downloads)
            check_main(server, driver, report, photo, downloads)
            server.stop()
            check_token(args.lift, driver, report, photo, downloads)
            check_console(driver, report)
        except Abort as abort:
            if not abort.recorded:
                report.check("the check ran to its end", False, str(abort))
            else:
                report.note(f"stopped after: {abort}")
        except WebDriverException as error:
            report.check("the browser ran", False, error.msg or repr(error))
        except Exception as error:  # a dropped connection, a bad answer: a failure, not a traceback
            report.check("the check ran to its end", False, f"{type(error).__name__}: {error}")
        finally:
            if driver is not None:
                driver.quit()
            if server is not None:
                server.stop()
    print(f"browser check: {report.passed} passed, {report.failed} failed, {time.monotonic() - started:.0f} s", flush=True)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
