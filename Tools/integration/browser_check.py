#!/usr/bin/env python3
"""Checks `lift serve`'s web page and a cross-origin editor calling it, in a real headless Chromium.

1. The page (Sources/LiftServer/Page/index.html; page_checks.py, page_list_checks.py), at a
   desktop's width: an upload through #file-input and every background, each download compared
   pixel by pixel with the API's own answer for the same options; a click on one subject (which
   must remove the other, also when zoomed in) and "All subjects"; a click and Enter beside the
   subjects (the server's message as a neutral notice); zoom by wheel, pinch, buttons and keys,
   pan by drag and arrows, the before/after split by keys and by its knob; model and quality;
   crop, square, margin and the listing preset; the mask download; the format choice exactly
   when the server's OpenAPI file lists one; four files at once (a PNG, a JPEG, a broken JPEG with
   the server's message, a text file), their states and "Apply settings to all", removing, clearing,
   a drop of two and a paste; every control named and reached with Tab; no console errors.
2. A second server with `--token secret --cors-origin '*' --cors-header X-Editor-Session`: the
   page at a phone's width asks for the token and works with it; then an editor page on another
   origin (editor_checks.py) runs docs/server.md's recipe on JPEG, PNG and (when the server takes
   it) WebP with tracing headers, places the cut-outs on a canvas and reports their size and alpha,
   which must equal the API's.

The photo is made at run time: two well-separated, differently coloured shapes on a gradient, which
the subject model finds as two subjects. If the server finds fewer, the check falls back to
Tests/Fixtures/examples/astronaut.jpg and says that it skips the two-subject part.

Usage, from the repository root:

    .venv/bin/python -m liftpy.integration.browser_check [--lift PATH] [--photo PATH] [--screenshots DIR]

--lift is any executable that takes `serve --port 0 [options]` and prints
`lift serve: listening on http://HOST:PORT` to standard error (default: $LIFT_BIN, else
.build/release/lift). --screenshots saves the page at desktop and phone width and the editor's
canvas as PNGs there, to look at. Prints one line per check; exits 1 if any failed.

Needs: PyPI selenium==4.50.0 and pillow==13.0.0 (Tools/requirements.txt), and Debian's Chromium and
its driver (`apt-get install -y chromium chromium-driver`: /usr/bin/chromium, /usr/bin/chromedriver).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import WebDriverException

from liftpy.integration.browser_support import ROOT, TOKEN, Abort, Report, Server, analyze, make_photo, open_browser
from liftpy.integration.editor_checks import check_editor
from liftpy.integration.page_checks import Page, Photo, check_page_source, check_settings, check_subjects, check_upload_and_backgrounds, check_view
from liftpy.integration.page_list_checks import check_keyboard_reach, check_list, check_token_on_a_phone

FALLBACK_PHOTO = ROOT / "Tests" / "Fixtures" / "examples" / "astronaut.jpg"


def check_console(driver: webdriver.Chrome, report: Report) -> None:
    """No script errors or policy violations; the expected 401, 415 and 422 answers are logged, and fine."""
    try:
        entries = driver.get_log("browser")
    except WebDriverException as error:
        report.note(f"the browser's console log is not readable ({error.msg}); not checked")
        return
    errors = [e["message"] for e in entries if e.get("level") == "SEVERE"
              and not re.search(r"status of (401|415|422)", e["message"])]
    report.check("no errors in the browser console", not errors, "; ".join(errors[:3]))


def run(args: argparse.Namespace, report: Report, work: Path) -> None:
    downloads = work / "downloads"
    downloads.mkdir()
    if not os.access(args.lift, os.X_OK):
        raise Abort(f"no executable at {args.lift}: build it (swift build -c release) or pass --lift")
    path = args.photo.resolve() if args.photo else make_photo(work)
    server = Server(args.lift)
    second = driver = None
    try:
        report.check("lift serve starts", True, server.url)
        if not args.photo:
            found = len(analyze(server, path).get("subjects", []))
            if found < 2:
                report.note(f"the server finds {found} subject(s) in the generated photo, not 2; using "
                            f"{FALLBACK_PHOTO.relative_to(ROOT)} instead, and the two-subject part is SKIPPED")
                path = FALLBACK_PHOTO
        check_page_source(server, report)
        photo = Photo(server, report, path)
        driver = open_browser(args.chromium, args.chromedriver, downloads)
        page = Page(driver, report, downloads, path)
        check_upload_and_backgrounds(server, page, report, photo)
        check_subjects(server, page, report, photo)
        check_view(page, report, photo)
        check_settings(server, page, report, photo)
        check_list(server, page, report, photo, work)
        check_keyboard_reach(page, report)
        check_console(driver, report)
        server.stop()

        second = Server(args.lift, "--token", TOKEN, "--cors-origin", "*", "--cors-header", "X-Editor-Session")
        check_token_on_a_phone(second, driver, report, path, downloads)
        check_console(driver, report)
        check_editor(second, driver, report, path, work, TOKEN)
    finally:
        if driver is not None:
            driver.quit()
        for running in (server, second):
            if running is not None:
                running.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lift", default=os.environ.get("LIFT_BIN") or str(ROOT / ".build" / "release" / "lift"),
                        help="the lift executable (default: $LIFT_BIN, else .build/release/lift)")
    parser.add_argument("--photo", type=Path, help="a photo to use instead of the generated two-subject one")
    parser.add_argument("--screenshots", type=Path, help="save screenshots of the page and the editor here")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args()

    report = Report(args.screenshots)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lift-browser-check-") as temporary:
        try:
            run(args, report, Path(temporary))
        except Abort as abort:
            if not abort.recorded:
                report.check("the check ran to its end", False, str(abort))
            else:
                report.note(f"stopped after: {abort}")
        except WebDriverException as error:
            report.check("the browser ran", False, error.msg or repr(error))
        except Exception as error:  # a dropped connection, a bad answer: a failure, not a traceback
            report.check("the check ran to its end", False, f"{type(error).__name__}: {error}")
    print(f"browser check: {report.passed} passed, {report.failed} failed, {time.monotonic() - started:.0f} s", flush=True)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
