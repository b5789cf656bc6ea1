"""Makes the README's before/after picture from public-domain scikit-image photos.

Runs the built `lift` binary (build it first: `swift build -c release --product lift`) on
scikit-image's astronaut (NASA, public domain) and coffee photos and writes
`Benchmarks/figures/before-after.png`: each photo beside its cut-out over a checkerboard. Also
writes the README's bundled example photo, `Tests/Fixtures/examples/astronaut.jpg`.

Usage: /work/venv/bin/python Tools/make_readme_figure.py
"""
import pathlib
import subprocess
import tempfile

import numpy as np
from PIL import Image
from skimage import data

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIFT = ROOT / ".build" / "release" / "lift"
OUT = ROOT / "Benchmarks" / "figures" / "before-after.png"
EXAMPLE = ROOT / "Tests" / "Fixtures" / "examples" / "astronaut.jpg"
HEIGHT = 220


def checkerboard(size, cell=12):
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w]
    board = (((ys // cell) + (xs // cell)) % 2).astype(np.uint8)
    grey = np.where(board[..., None] == 1, 205, 245).astype(np.uint8)
    return Image.fromarray(np.concatenate([np.repeat(grey, 3, axis=2), np.full((h, w, 1), 255, np.uint8)], axis=2), "RGBA")


def panel(image, height=HEIGHT):
    width = round(image.width * height / image.height)
    return image.resize((width, height), Image.LANCZOS)


def write_example():
    """The bundled example photo the README's first command runs on."""
    EXAMPLE.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(data.astronaut()).save(EXAMPLE, quality=90, optimize=True)


def main():
    write_example()
    tiles = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for name, model in [("astronaut", "person"), ("coffee", "subject")]:
            source = tmp / f"{name}.png"
            Image.fromarray(getattr(data, name)()).save(source)
            cutout = tmp / f"{name}.cutout.png"
            subprocess.run([str(LIFT), "--model", model, "--quiet", str(source), "-o", str(cutout)], check=True)
            before = panel(Image.open(source).convert("RGBA"))
            after = panel(Image.open(cutout).convert("RGBA"))
            backdrop = checkerboard(after.size)
            backdrop.alpha_composite(after)
            tiles += [before, backdrop]
    gap = 8
    sheet = Image.new("RGBA", (sum(t.width for t in tiles) + gap * (len(tiles) - 1), HEIGHT), (255, 255, 255, 255))
    x = 0
    for tile in tiles:
        sheet.paste(tile, (x, 0))
        x += tile.width + gap
    OUT.parent.mkdir(parents=True, exist_ok=True)
    sheet.convert("RGB").save(OUT, optimize=True)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
