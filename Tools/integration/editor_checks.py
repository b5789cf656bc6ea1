"""An editor on another origin calling `lift serve`: Tools/integration/editor/index.html, served by
a second small HTTP server on its own port, runs the recipe of docs/server.md
(Tools/integration/editor/lift-provider.js: the plain fetch() call and the CE.SDK plugin's custom
provider) on JPEG, PNG and, when the server takes it, WebP photos, with tracing headers and a
bearer token against `lift serve --cors-origin '*'`. Run by Tools/integration/browser_check.py."""
from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path

from PIL import Image
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from liftpy.integration.browser_support import ROOT, WAIT, Abort, Report, Server, StaticSite, alpha_counts, api, content_type, cutout

EDITOR = ROOT / "Tools" / "integration" / "editor"
DOCS = ROOT / "docs" / "server.md"


def editor_photos(server: Server, photo: Path, work: Path, token: str, report: Report) -> list[Path]:
    """The photo as JPEG and PNG, and as WebP when the server accepts WebP."""
    photos = [photo]
    with Image.open(photo) as image:
        for suffix in ("png", "webp"):
            path = work / f"editor-{photo.stem}.{suffix}"
            image.save(path, **({"lossless": True} if suffix == "webp" else {}))
            photos.append(path)
    status, _, body = api(server.url, "/api/analyze", photos[-1].read_bytes(), "image/webp", token)
    if status != 200:
        report.note(f"this lift does not take WebP yet ({status}: {body[:120]!r}); the editor check uses JPEG and PNG only")
        photos.pop()
    return photos


def check_recipe_is_documented(report: Report) -> None:
    """docs/server.md shows lift-provider.js as it is, so the documented recipe is the tested one."""
    docs = DOCS.read_text()
    code = (EDITOR / "lift-provider.js").read_text()
    blocks = re.findall(r"```js\n(.*?)```", docs, re.DOTALL)
    body = code[code.index("/**"):].strip()  # the file without its opening comment
    report.check("docs/server.md shows lift-provider.js verbatim", any(block.strip() == body for block in blocks),
                 "no ```js block in docs/server.md equals Tools/integration/editor/lift-provider.js from its first /**")


def check_editor(server: Server, driver: webdriver.Chrome, report: Report, photo: Path, work: Path, token: str) -> None:
    check_recipe_is_documented(report)
    photos = editor_photos(server, photo, work, token, report)
    files = {"/index.html": ((EDITOR / "index.html").read_bytes(), "text/html; charset=utf-8"),
             "/lift-provider.js": ((EDITOR / "lift-provider.js").read_bytes(), "text/javascript")}
    for path in photos:
        files[f"/photos/{path.name}"] = (path.read_bytes(), content_type(path))
    site = StaticSite(files)
    try:
        report.check("the editor page has an origin of its own", site.url != server.url, f"{site.url} calls {server.url}")
        query = urllib.parse.urlencode([("server", server.url), ("token", token)] + [("photo", p.name) for p in photos])
        driver.get(f"{site.url}/index.html?{query}")
        element = driver.find_element(By.ID, "report")
        try:
            WebDriverWait(driver, WAIT * 3).until(lambda _: element.get_attribute("data-done") == "true")
        except TimeoutException:
            raise Abort(f"the editor page did not finish within {3 * WAIT} s: {element.text[:300]!r}") from None
        result = json.loads(element.text)
        report.screenshot(driver, "editor-1-canvas")
        report.require("the editor page ran without errors", not result["errors"], f"{result['errors']}")
        for path, entry in zip(photos, result["results"]):
            check_photo(server, report, path, entry, token)
        exposed = result.get("exposed") or {}
        report.check("the answer's X-Lift-Subjects and Server-Timing are readable across origins",
                     exposed.get("status") == 200 and exposed.get("subjects") is not None and exposed.get("timing") is not None, f"{exposed}")
        report.check("a header outside the CORS list is refused by the browser (the preflight's 403)",
                     result.get("refused") == "TypeError", f"{result.get('refused')!r}")
    finally:
        site.stop()


def check_photo(server: Server, report: Report, path: Path, entry: dict, token: str) -> None:
    kind = path.suffix.lstrip(".").upper()
    reference = alpha_counts(cutout(server, path, "", token=token)[0])
    with Image.open(path) as image:
        size = list(image.size)
    for name, measured in [("fetch()", entry["fetch"]), ("processImageFileURI", entry["imageFileURI"]),
                           ("processSourceSet, largest", entry["sourceSet"][0])]:
        counts = {k: measured[k] for k in reference}
        report.check(f"{kind} through {name}: a PNG of the photo's size with the API's alpha",
                     measured["type"] == "image/png" and [measured["width"], measured["height"]] == size and counts == reference,
                     f"{measured['type']} {measured['width']}×{measured['height']}, alpha {counts} vs the API's {reference}")
    half = entry["sourceSet"][1]
    report.check(f"{kind} through processSourceSet, half size: scaled cut-out with clear and opaque pixels",
                 [half["width"], half["height"]] == half["declared"] and half["transparent"] > 0 and half["opaque"] > 0,
                 f"{half}")
    report.check(f"{kind}: the provider says it is custom", entry["providerType"] == "custom", entry["providerType"])
