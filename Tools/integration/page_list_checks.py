"""The page's list of photos (several at once: picked, dropped, pasted; per-photo progress and the
server's message on failure; apply to all, remove, clear), its keyboard reach, and the token flow
at a phone's width. Run by Tools/integration/browser_check.py."""
from __future__ import annotations

import json
from pathlib import Path

from PIL import Image
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from liftpy.integration.browser_support import TOKEN, WAIT, Report, Server, api, cutout
from liftpy.integration.page_checks import Page, Photo, check_download


# Records every state each list item passes through, and the upload progress values it showed.
RECORD_STATES = """
window.seenStates = {};
new MutationObserver((changes) => {
  for (const change of changes) {
    const item = change.target.closest && change.target.closest('#files > li');
    if (!item) continue;
    const seen = window.seenStates[item.id] || (window.seenStates[item.id] = {states: [], progress: []});
    if (seen.states[seen.states.length - 1] !== item.dataset.state) seen.states.push(item.dataset.state);
    const bar = item.querySelector('progress');
    if (item.dataset.state === 'uploading' && bar.hasAttribute('value')) seen.progress.push(bar.value);
  }
}).observe(document.getElementById('files'), {subtree: true, attributes: true, childList: true, characterData: true});
"""


def check_list(server: Server, page: Page, report: Report, photo: Photo, work: Path) -> None:
    """Several photos at once through #file-input: a PNG, the JPEG, a broken JPEG and a text file."""
    png = work / f"{photo.path.stem}-copy.png"
    with Image.open(photo.path) as image:
        image.save(png)
    broken = work / "broken.jpg"
    broken.write_bytes(photo.path.read_bytes()[:600])
    text = work / "notes.txt"
    text.write_text("not a photo\n")
    status, _, body = api(server.url, "/api/remove", broken.read_bytes())
    broken_message = json.loads(body).get("message", "") if status >= 400 else ""
    report.require("the API refuses the broken JPEG with a message", bool(broken_message), f"{status} {body[:200]!r}")

    page.element("clear-files").click()
    page.js(RECORD_STATES)
    page.element("file-input").send_keys("\n".join(str(p) for p in (png, photo.path, broken, text)))
    items = page.settled("four files at once")
    by_name = {item["name"]: item for item in items}
    report.require("the list holds the four new files", len(items) == 4
                   and set(by_name) == {png.name, photo.path.name, broken.name, text.name}, f"{[i['name'] for i in items]}")
    report.check("the PNG and the JPEG are done", by_name[png.name]["state"] == by_name[photo.path.name]["state"] == "done",
                 f"{by_name[png.name]}, {by_name[photo.path.name]}")
    shown = by_name[broken.name]["status"].lower()
    report.check("the broken JPEG failed with the server's message", by_name[broken.name]["state"] == "failed"
                 and broken_message.lower().rstrip(".") in shown, f"{shown!r} vs {broken_message!r}")
    report.check("the text file failed as not a photo", by_name[text.name]["state"] == "failed"
                 and "not a photo" in by_name[text.name]["status"], f"{by_name[text.name]}")
    seen = page.js("return window.seenStates")[by_name[png.name]["id"]]
    report.check("the PNG went through uploading and working to done",
                 "uploading" in seen["states"] and "working" in seen["states"] and seen["states"][-1] == "done",
                 f"states {seen['states']}, upload progress shown {seen['progress'][:5]}")
    report.screenshot(page.driver, "desktop-6-list")

    png_item = page.driver.find_element(By.CSS_SELECTOR, f"#{by_name[png.name]['id']} .file-select")
    png_item.click()
    check_download(page, report, "the PNG from the list", cutout(server, png, "background=transparent")[0],
                   file_name=f"{png.stem}.cutout.png")
    page.act("#bg-white for the list", lambda: page.element("bg-white").click())
    stale = page.settled("after a new background")
    report.check("the JPEG says it was made with earlier settings, and Apply to all shows",
                 "earlier" in next(i["status"] for i in stale if i["name"] == photo.path.name)
                 and page.element("apply-all").is_displayed(), f"{[i['status'] for i in stale]}")
    page.element("apply-all").click()
    items = page.settled("Apply settings to all")
    report.check("after Apply to all no photo is left with earlier settings",
                 all("earlier" not in i["status"] for i in items) and not page.element("apply-all").is_displayed(),
                 f"{[i['status'] for i in items]}")
    check_download(page, report, "the PNG on white", cutout(server, png, "background=white")[0], file_name=f"{png.stem}.cutout.png")
    page.driver.find_element(By.CSS_SELECTOR, f"#{by_name[text.name]['id']} .file-remove").click()
    report.check("× removes a photo from the list", len(page.driver.find_elements(By.CSS_SELECTOR, "#files > li")) == 3)
    page.element("clear-files").click()
    report.check("Clear list empties it", not page.driver.find_elements(By.CSS_SELECTOR, "#files > li")
                 and page.text("status") == "No photo yet.", page.text("status"))
    page.element("bg-transparent").click()  # no photo: only the setting changes

    # A drop of two photos, then a paste.
    page.hand_over("drop", [("dropped-1.jpg", photo.path), ("dropped-2.png", png)])
    items = page.settled("a drop of two photos")
    report.check("a drop adds both photos and cuts them out", [i["state"] for i in items] == ["done", "done"], f"{items}")
    check_download(page, report, "dropped (saved as dropped-1.cutout.png)", photo.reference, file_name="dropped-1.cutout.png")
    page.hand_over("paste", [("pasted.jpg", photo.path)])
    items = page.settled("a paste")
    report.check("a paste adds the photo and shows it", len(items) == 3 and items[-1]["state"] == "done"
                 and page.driver.find_element(By.CSS_SELECTOR, "#files > li:last-child").get_attribute("aria-current") == "true",
                 f"{items}")


def check_keyboard_reach(page: Page, report: Report) -> None:
    """Every control has a name a screen reader says and can be reached with Tab."""
    unnamed = []
    for element in page.driver.find_elements(By.CSS_SELECTOR, "button, input, select, a, #viewer"):
        if not element.is_displayed() and element.get_attribute("type") != "file":
            continue
        name = element.accessible_name.strip()
        if not name:
            unnamed.append(element.get_attribute("id") or element.get_attribute("outerHTML")[:60])
    report.check("every visible control has an accessible name", not unnamed, f"unnamed: {unnamed}")
    negative = page.js("return [...document.querySelectorAll('[tabindex]')].filter((e) => e.tabIndex < 0).map((e) => e.id)")
    report.check("no control is taken out of the tab order", not negative, f"{negative}")
    page.js("document.activeElement.blur(); window.scrollTo(0, 0)")
    reached = []
    for _ in range(60):
        ActionChains(page.driver).send_keys(Keys.TAB).perform()
        reached.append(page.js("return document.activeElement.id || document.activeElement.className"))
    wanted = {"file-input", "viewer", "compare", "zoom-in", "zoom-out", "zoom-reset", "model", "quality", "bg-transparent", "bg-white",
              "bg-color", "bg-blur", "crop", "listing-preset", "download", "download-mask"}
    report.check("Tab reaches the drop zone, the viewer and every setting", wanted <= set(reached), f"missing {sorted(wanted - set(reached))}")


def check_token_on_a_phone(server: Server, driver: webdriver.Chrome, report: Report, photo: Path, downloads: Path) -> None:
    """A server with --token TOKEN, at a phone's width: the page asks for the token, then works."""
    try:
        report.check("with --token: GET / is public", api(server.url, "/")[0] == 200)
        status = api(server.url, "/api/remove", photo.read_bytes())[0]
        report.check("with --token: the API answers 401 without the token", status == 401, f"status {status}")
        driver.set_window_size(390, 844)
        page = Page(driver, report, downloads, photo)
        driver.get(server.url + "/")
        WebDriverWait(driver, WAIT).until(lambda _: len(page.element("quality").find_elements(By.TAG_NAME, "option")) > 1)
        token = page.element("token")
        report.check("#token is hidden before any 401", not token.is_displayed())
        page.act("upload without the token", lambda: page.element("file-input").send_keys(str(photo)), expect="error")
        report.require("the 401 reveals #token", token.is_displayed(), f"status {page.text('status')!r}")
        report.screenshot(driver, "phone-1-token")
        page.act("typing the token", lambda: token.send_keys(TOKEN + Keys.ENTER))
        stored = driver.execute_script("return sessionStorage.getItem('lift-token')")
        report.check("the token is kept in sessionStorage", stored == TOKEN, f"{stored!r}")
        overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        report.check("at a phone's width nothing overflows sideways", overflow <= 0, f"{overflow} px too wide")
        viewer = page.element("viewer").rect
        report.check("at a phone's width the viewer spans the screen", viewer["width"] >= 340, f"{viewer}")
        page.js("document.getElementById('compare').value = 50; document.getElementById('compare').dispatchEvent(new Event('input'))")
        report.screenshot(driver, "phone-2-result")
        page.js("document.querySelector('.panel').scrollIntoView()")
        report.screenshot(driver, "phone-3-settings", from_top=False)
        image = page.download("with the token")
        with Image.open(photo) as original:
            report.check("with the token: the download is the cut-out", image.size == original.size, f"{image.size}")
    finally:
        driver.set_window_size(1280, 900)
