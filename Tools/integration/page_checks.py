"""The checks of `lift serve`'s own page (Sources/LiftServer/Page/index.html) in Chromium, run by
Tools/integration/browser_check.py: every control, each download compared with the API's own
answer for the same options."""
from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path

from PIL import Image
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from liftpy.integration.browser_support import (WAIT, Abort, Report, Server, alpha, analyze, api, content_type, cutout,
                             differing_fraction, opaque_point, transparent_point)

PAGE_IDS = ["file-input", "drop-zone", "viewer", "original", "result", "status", "subject-count", "all-subjects",
            "compare", "zoom-in", "zoom-out", "zoom-reset", "zoom-level", "files", "apply-all", "clear-files", "model",
            "quality", "bg-transparent", "bg-white", "bg-color", "bg-blur", "crop", "square", "margin", "listing-preset",
            "format", "download", "download-mask", "token"]


class Page:
    """The page in the browser, and waits on what it shows."""

    def __init__(self, driver: webdriver.Chrome, report: Report, downloads: Path, photo: Path) -> None:
        self.driver, self.report, self.downloads, self.photo = driver, report, downloads, photo

    def element(self, id_: str):
        return self.driver.find_element(By.ID, id_)

    def text(self, id_: str) -> str:
        return self.element(id_).text.strip()

    def js(self, script: str, *arguments):
        return self.driver.execute_script(script, *arguments)

    def requests_finished(self) -> int:
        return int(self.element("result").get_attribute("data-request") or 0)

    def act(self, name: str, action, expect: str = "done") -> None:
        """Runs `action` (which starts one request for the shown photo) and waits until it finished."""
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

    def settled(self, name: str) -> list[dict]:
        """Waits until every photo in the list is done or failed; returns their states and texts."""
        script = """return [...document.querySelectorAll('#files > li')].map((li) => ({
            id: li.id, state: li.dataset.state, name: li.querySelector('.file-name').textContent,
            status: li.querySelector('.file-status').textContent}))"""
        try:
            WebDriverWait(self.driver, WAIT * 2).until(
                lambda _: all(item["state"] in ("done", "failed") for item in self.js(script)))
        except TimeoutException:
            raise Abort(f"{name}: the list did not settle within {2 * WAIT} s: {self.js(script)}") from None
        return self.js(script)

    def download(self, name: str, file_name: str | None = None, link: str = "download") -> Image.Image:
        """Clicks `link` and returns the image it saved as `file_name` (default `<photo>.cutout.png`)."""
        for old in self.downloads.iterdir():
            old.unlink()
        expected = self.downloads / (file_name or f"{self.photo.stem}.cutout.png")
        self.element(link).click()
        deadline = time.monotonic() + WAIT
        files: list[Path] = []
        while time.monotonic() < deadline:
            files = list(self.downloads.iterdir())
            if expected.exists() and not any(f.suffix == ".crdownload" for f in files):
                try:
                    image = Image.open(expected)
                    image.load()
                    return image.convert("L" if image.mode in ("L", "LA", "I;16") else "RGBA")
                except OSError:
                    pass  # still being written
            time.sleep(0.1)
        raise Abort(f"{name}: no {expected.name} downloaded within {WAIT} s (found {[f.name for f in files]})")

    def placement(self) -> dict:
        """Where #result shows the photo: its client box and natural size, and the viewer's box."""
        return self.js("""const r = document.getElementById('result'), v = document.getElementById('viewer');
            const a = r.getBoundingClientRect(), b = v.getBoundingClientRect();
            return {left: a.left, top: a.top, width: a.width, height: a.height, naturalWidth: r.naturalWidth,
                    naturalHeight: r.naturalHeight, viewer: {left: b.left, top: b.top, width: b.width, height: b.height}}""")

    def viewer_offset(self, point: tuple[int, int]) -> tuple[int, int]:
        """The offset from the viewer's centre (what Selenium's offsets are relative to) where the
        shown cut-out has the photo pixel `point`."""
        self.js("document.getElementById('viewer').scrollIntoView({block: 'center'})")
        place = self.placement()
        x = place["left"] + (point[0] + 0.5) * place["width"] / place["naturalWidth"]
        y = place["top"] + (point[1] + 0.5) * place["height"] / place["naturalHeight"]
        viewer = place["viewer"]
        return round(x - viewer["left"] - viewer["width"] / 2), round(y - viewer["top"] - viewer["height"] / 2)

    def click_photo_point(self, point: tuple[int, int]) -> None:
        dx, dy = self.viewer_offset(point)
        ActionChains(self.driver).move_to_element_with_offset(self.element("viewer"), dx, dy).click().perform()

    def hand_over(self, how: str, photos: list[tuple[str, Path]]) -> None:
        """Gives the page files the way a drop or a paste does (a DragEvent or ClipboardEvent
        carrying them, as the browser would dispatch)."""
        files = [(base64.b64encode(path.read_bytes()).decode(), name, content_type(path)) for name, path in photos]
        self.js("""
            const [files, how] = arguments;
            const data = new DataTransfer();
            for (const [base64, name, type] of files) {
              data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, {type}));
            }
            const options = {bubbles: true, cancelable: true};
            const event = how === 'drop' ? new DragEvent('drop', {...options, dataTransfer: data})
                                         : new ClipboardEvent('paste', {...options, clipboardData: data});
            (how === 'drop' ? document.getElementById('drop-zone') : document.body).dispatchEvent(event);
        """, files, how)

    def zoom(self) -> int:
        return int(self.text("zoom-level").rstrip("%"))

    def set_value(self, id_: str, value: str) -> None:
        """Sets a select's or input's value and fires its change event, as a person choosing does."""
        self.js("const e = arguments[0]; e.value = arguments[1]; e.dispatchEvent(new Event('change', {bubbles: true}))",
                self.element(id_), value)


def check_download(page: Page, report: Report, name: str, reference: Image.Image, file_name: str | None = None,
                   link: str = "download") -> Image.Image:
    image = page.download(name, file_name, link)
    share = differing_fraction(image, reference)
    report.check(f"{name}: download equals the API's answer", share < 0.005,
                 f"{share:.2%} of pixels differ from the API's answer with the same options ({image.size} vs {reference.size})")
    return image


# --- the checks -----------------------------------------------------------------------------------

def check_page_source(server: Server, report: Report) -> None:
    status, headers, body = api(server.url, "/")
    html = body.decode("utf-8", "replace")
    report.require("GET / answers the page", status == 200 and "text/html" in headers.get("Content-Type", ""),
                   f"status {status}, Content-Type {headers.get('Content-Type')!r}")
    report.check("the page's policy loads nothing from elsewhere",
                 "default-src 'none'" in headers.get("Content-Security-Policy", ""), headers.get("Content-Security-Policy", ""))
    external = re.findall(r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//[^"'\s>]*|url\(\s*["']?(?:https?:)?//[^)]*|@import""",
                          html, re.IGNORECASE)
    report.check("the page refers to nothing elsewhere", not external, f"found {external[:3]}")
    missing = [i for i in PAGE_IDS if f'id="{i}"' not in html]
    report.check("the page has every id the checks use", not missing, f"missing {missing}")


class Photo:
    """The test photo and what the server's own answers say about it."""

    def __init__(self, server: Server, report: Report, path: Path) -> None:
        self.path = path
        analysis = analyze(server, path)
        self.subjects = analysis.get("subjects", [])
        with Image.open(path) as image:
            self.size = image.size
        report.require("/api/analyze finds a subject", len(self.subjects) >= 1
                       and (analysis.get("width"), analysis.get("height")) == self.size,
                       f"{len(self.subjects)} subject(s) in a {analysis.get('width')}×{analysis.get('height')} analysis")
        self.reference, _ = cutout(server, path, "background=transparent")
        self.clear = transparent_point(self.reference)
        self.inside = [opaque_point(self.reference, s["bbox"]) for s in self.subjects]
        report.require("the API's cut-out has a clear point and an opaque point in each subject",
                       self.clear is not None and None not in self.inside, f"clear {self.clear}, opaque {self.inside}")


def check_upload_and_backgrounds(server: Server, page: Page, report: Report, photo: Photo) -> None:
    driver = page.driver
    driver.get(server.url + "/")
    report.require("the page opens", "Lift" in driver.title, f"title {driver.title!r}")
    WebDriverWait(driver, WAIT).until(lambda _: len(page.element("quality").find_elements(By.TAG_NAME, "option")) > 1)
    page.act("upload through #file-input", lambda: page.element("file-input").send_keys(str(photo.path)))
    count = page.text("subject-count")
    report.check("#subject-count shows the number of subjects", str(len(photo.subjects)) in count, f"{count!r}")
    image = check_download(page, report, "transparent", photo.reference)
    report.check("transparent: the clear point is fully transparent and every subject opaque",
                 alpha(image, photo.clear) == 0 and all(alpha(image, p) == 255 for p in photo.inside),
                 f"{image.getpixel(photo.clear)}, {[image.getpixel(p) for p in photo.inside]}")
    report.screenshot(driver, "desktop-1-cutout")

    # Keyboard: the white background button pressed with Space.
    page.act("#bg-white by keyboard", lambda: page.element("bg-white").send_keys(Keys.SPACE))
    image = check_download(page, report, "white", cutout(server, photo.path, "background=white")[0])
    report.check("white: the clear point is white", image.getpixel(photo.clear) == (255, 255, 255, 255), f"{image.getpixel(photo.clear)}")
    page.act("#bg-color", lambda: page.set_value("bg-color", "#00ff00"))
    image = check_download(page, report, "colour", cutout(server, photo.path, "background=%2300ff00")[0])
    report.check("colour: the clear point is #00ff00", image.getpixel(photo.clear) == (0, 255, 0, 255), f"{image.getpixel(photo.clear)}")
    page.act("#bg-blur", lambda: page.element("bg-blur").click())
    image = check_download(page, report, "blur", cutout(server, photo.path, "background=blur")[0])
    report.check("blur: the clear point is opaque photo", alpha(image, photo.clear) == 255
                 and image.getpixel(photo.clear)[:3] not in [(255, 255, 255), (0, 255, 0)], f"{image.getpixel(photo.clear)}")
    page.act("#bg-transparent", lambda: page.element("bg-transparent").click())


def check_subjects(server: Server, page: Page, report: Report, photo: Photo) -> None:
    """A click on one subject keeps it alone (also when zoomed in), All subjects brings the others
    back, a click or Enter beside every subject is a neutral notice."""
    if len(photo.subjects) < 2:
        report.note(f"the photo has {len(photo.subjects)} subject; the two-subject part is SKIPPED")
    else:
        target, other = photo.inside[-1], photo.inside[0]  # the smallest subject, and the largest
        reference, headers = cutout(server, photo.path, f"background=transparent&at={target[0]},{target[1]}")
        report.require("the API keeps one subject for a point in the smallest",
                       headers.get("X-Lift-Kept") == "1" and alpha(reference, target) == 255 and alpha(reference, other) == 0,
                       f"X-Lift-Kept {headers.get('X-Lift-Kept')}")
        scale = page.placement()["width"] / photo.size[0]
        page.act(f"click on subject {photo.subjects[-1]['number']} (shown at {scale:.2f}× its size)", lambda: page.click_photo_point(target))
        check_point(page, report, target, scale)
        image = check_download(page, report, "one subject", reference)
        report.check("one subject: the clicked one opaque, the other transparent", alpha(image, target) == 255 and alpha(image, other) == 0,
                     f"{image.getpixel(target)} at {target}, {image.getpixel(other)} at {other}")
        count = page.text("subject-count")
        report.check("#subject-count shows 1 of the subjects", count.startswith("1 ") and str(len(photo.subjects)) in count, f"{count!r}")
        page.act("#all-subjects", lambda: page.element("all-subjects").click())
        image = page.download("all subjects")
        report.check("all subjects: both opaque again", alpha(image, target) == 255 and alpha(image, other) == 255)

    kept_src = page.element("result").get_attribute("src")
    status, _, body = api(server.url, f"/api/remove?at={photo.clear[0]},{photo.clear[1]}", photo.path.read_bytes(), content_type(photo.path))
    expected = json.loads(body).get("message", "") if status == 422 else ""
    report.check("the API answers 422 with a message for a point beside the subjects", status == 422 and bool(expected), f"{status} {body[:200]!r}")
    page.act("click beside the subjects", lambda: page.click_photo_point(photo.clear))
    status_line = page.element("status")
    message = status_line.text
    same = re.sub(r"\d+", "#", expected.lower()) in re.sub(r"\d+", "#", message.lower())
    report.check("a click on background: the server's message, as a neutral notice",
                 bool(expected) and same and status_line.get_attribute("class") == "notice", f"{message!r} ({status_line.get_attribute('class')!r})")
    report.check("a click on background keeps the cut-out shown", page.element("result").get_attribute("src") == kept_src)
    report.screenshot(page.driver, "desktop-2-background-click")


def check_point(page: Page, report: Report, target: tuple[int, int], scale: float) -> None:
    sent = page.element("result").get_attribute("data-at") or ""
    tolerance = 1 / scale + 1  # one CSS pixel is 1/scale photo pixels
    report.check(f"the click becomes the right photo pixel (±{tolerance:.1f})", bool(re.fullmatch(r"\d+,\d+", sent)) and all(
        abs(int(v) - t) <= tolerance for v, t in zip(sent.split(","), target)), f"at={sent} for {target[0]},{target[1]}")


def check_view(page: Page, report: Report, photo: Photo) -> None:
    """Zoom (wheel, pinch, buttons, keys), pan (drag, arrows), the before/after split."""
    driver, viewer = page.driver, page.element("viewer")
    target = photo.inside[-1]
    dx, dy = page.viewer_offset(target)
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(viewer, dx, dy), 0, -300).perform()
    WebDriverWait(driver, 5).until(lambda _: page.zoom() > 100)
    zoom = page.zoom()
    after = page.viewer_offset(target)
    report.check("the wheel zooms in around the pointer", zoom > 200 and max(abs(after[0] - dx), abs(after[1] - dy)) <= 2,
                 f"zoom {zoom}%, the point moved from {dx},{dy} to {after}")
    report.screenshot(driver, "desktop-3-zoomed")
    if len(photo.subjects) >= 2:
        scale = page.placement()["width"] / photo.size[0]
        page.act("click on a subject while zoomed in", lambda: page.click_photo_point(target))
        check_point(page, report, target, scale)

    before, requests = page.placement(), page.requests_finished()
    ActionChains(driver).move_to_element_with_offset(viewer, 0, 0).click_and_hold().move_by_offset(60, 10) \
        .move_by_offset(60, 30).release().perform()
    moved = page.placement()
    time.sleep(0.3)
    report.check("a drag pans the view and picks nothing", round(moved["left"] - before["left"]) in range(115, 125)
                 and round(moved["top"] - before["top"]) in range(35, 45) and page.requests_finished() == requests
                 and page.element("result").get_attribute("data-state") == "done",
                 f"moved {moved['left'] - before['left']:.0f},{moved['top'] - before['top']:.0f}")

    page.element("zoom-reset").click()
    report.check("Fit goes back to 100 %", page.zoom() == 100, page.text("zoom-level"))
    page.element("zoom-in").click()
    report.check("+ zooms in by half", page.zoom() == 150, page.text("zoom-level"))
    page.element("zoom-out").click()
    report.check("− zooms back out", page.zoom() == 100, page.text("zoom-level"))

    check_pinch(page, report)

    page.js("document.getElementById('viewer').focus()")
    ActionChains(driver).send_keys("+++").perform()
    zoomed = page.zoom()
    spot = page.placement()
    ActionChains(driver).send_keys(Keys.ARROW_LEFT).perform()
    report.check("keys: + zooms by a quarter, ← pans", zoomed == 195 and abs(page.placement()["left"] - spot["left"] - 40) <= 1.5,
                 f"zoom {zoomed}%, moved {page.placement()['left'] - spot['left']:.0f}")
    ActionChains(driver).send_keys("0").perform()
    report.check("keys: 0 fits", page.zoom() == 100, page.text("zoom-level"))
    # The middle of the generated photo is background: Enter picks it, a neutral notice answers.
    page.act("Enter picks the subject in the middle", lambda: ActionChains(driver).send_keys(Keys.ENTER).perform())
    report.check("Enter on background gives a notice", page.element("status").get_attribute("class") in ("notice", ""),
                 page.text("status"))

    compare = page.element("compare")
    report.check("#compare is enabled for a full-frame cut-out", compare.is_enabled())
    compare.send_keys(Keys.PAGE_UP * 5)
    split = page.js("return getComputedStyle(document.getElementById('viewer')).getPropertyValue('--split').trim()")
    report.check("Page Up on #compare moves the split to the middle", split == "50%" and page.element("original").is_displayed()
                 and page.element("divider").is_displayed(), f"--split {split!r}")
    report.screenshot(driver, "desktop-4-before-after")
    knob = driver.find_element(By.CSS_SELECTOR, "#divider span")
    ActionChains(driver).click_and_hold(knob).move_by_offset(-150, 0).release().perform()
    report.check("dragging the knob moves the split", 20 <= int(compare.get_attribute("value")) <= 45, compare.get_attribute("value"))
    compare.send_keys(Keys.HOME)
    if page.element("result").get_attribute("data-at"):
        page.act("#all-subjects after the view checks", lambda: page.element("all-subjects").click())


def check_pinch(page: Page, report: Report) -> None:
    """Two touch points moving apart over the viewer zoom in (CDP touch events, as a phone sends)."""
    place = page.placement()["viewer"]
    cx, cy = place["left"] + place["width"] / 2, place["top"] + place["height"] / 2
    touch = lambda kind, spread: page.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {  # noqa: E731
        "type": kind, "touchPoints": [] if kind == "touchEnd" else
        [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]})
    touch("touchStart", 40)
    for spread in (60, 90, 120):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    zoom = page.zoom()
    report.check("a pinch zooms in", 250 <= zoom <= 350, f"{zoom}% for fingers 3× further apart")
    page.element("zoom-reset").click()


def check_settings(server: Server, page: Page, report: Report, photo: Photo) -> None:
    """Model, quality, crop, square, margin, the listing preset, the mask and the format choice."""
    models = [o.get_attribute("value") for o in page.element("model").find_elements(By.TAG_NAME, "option")]
    qualities = [o.get_attribute("value") for o in page.element("quality").find_elements(By.TAG_NAME, "option")]
    report.check("#model lists the server's models", {"subject", "u2netp"} <= set(models), f"{models}")
    report.check("#quality lists fast, balanced, accurate", {"fast", "balanced", "accurate"} <= set(qualities), f"{qualities}")
    page.act("#model u2netp", lambda: page.set_value("model", "u2netp"))
    page.act("#quality fast", lambda: page.set_value("quality", "fast"))
    check_download(page, report, "u2netp, fast", cutout(server, photo.path, "model=u2netp&quality=fast")[0])
    page.act("#model back to the server's", lambda: page.set_value("model", ""))
    page.act("#quality back to the server's", lambda: page.set_value("quality", ""))

    report.check("#square and #margin wait for #crop", not page.element("square").is_enabled() and not page.element("margin").is_enabled())
    page.act("#crop", lambda: page.element("crop").click())
    image = check_download(page, report, "crop", cutout(server, photo.path, "crop=true&margin=5%25")[0])
    report.check("crop: smaller than the photo", image.width < photo.size[0] and image.height < photo.size[1], f"{image.size}")
    report.check("a cropped cut-out cannot be compared", not page.element("compare").is_enabled())
    requests = page.requests_finished()
    ActionChains(page.driver).move_to_element(page.element("viewer")).click().perform()
    report.check("a click on a cropped cut-out explains itself, neutrally", "Crop" in page.text("status")
                 and page.element("status").get_attribute("class") == "notice" and page.requests_finished() == requests, page.text("status"))
    page.act("#square", lambda: page.element("square").click())
    image = check_download(page, report, "square", cutout(server, photo.path, "crop=true&square=true&margin=5%25")[0])
    report.check("square: width equals height", image.width == image.height, f"{image.size}")
    page.act("#margin 12", lambda: page.set_value("margin", "12"))
    check_download(page, report, "margin 12 %", cutout(server, photo.path, "crop=true&square=true&margin=12%25")[0])
    page.act("#crop off", lambda: page.element("crop").click())
    page.act("#listing-preset", lambda: page.element("listing-preset").click())
    image = check_download(page, report, "listing preset", cutout(server, photo.path, "background=white&crop=true&square=true&margin=5%25")[0])
    report.check("listing preset: square on white", image.width == image.height and image.getpixel((1, 1)) == (255, 255, 255, 255),
                 f"{image.size} {image.getpixel((1, 1))}")
    report.screenshot(page.driver, "desktop-5-listing-photo")
    check_download(page, report, "mask", cutout(server, photo.path, "crop=true&square=true&margin=5%25", path="/api/mask")[0],
                   file_name=f"{photo.path.stem}.mask.png", link="download-mask")
    page.act("#crop off again", lambda: page.element("crop").click())
    page.act("#bg-transparent again", lambda: page.element("bg-transparent").click())

    spec = json.loads(api(server.url, "/openapi.json")[2])
    listed = "format" in spec.get("components", {}).get("parameters", {})
    shown = page.element("format-field").is_displayed()
    report.check("#format shows exactly when the server's OpenAPI file lists a format option", shown == listed,
                 f"listed {listed}, shown {shown}")
    if listed:
        formats = [o.get_attribute("value") for o in page.element("format").find_elements(By.TAG_NAME, "option")]
        other = next((f for f in formats if f != "png"), None)
        if other:
            page.act(f"#format {other}", lambda: page.set_value("format", other))
            suffix = "jpg" if other == "jpeg" else other
            page.download(f"format {other}", f"{photo.path.stem}.cutout.{suffix}")
            report.check(f"format {other}: downloaded as .{suffix}", True)
            page.act("#format png", lambda: page.set_value("format", "png"))
