#!/usr/bin/env python3
"""Generates the JPEG decoder's test corpus in Tests/Fixtures/jpeg/.

Usage: /work/venv/bin/python Tools/make_jpeg_fixtures.py [output-dir]

Each fixture NAME.jpg is encoded by Pillow or OpenCV (both on libjpeg-turbo) from a deterministic
synthetic picture; NAME.rgb beside it holds the expected pixels: Pillow's decode (libjpeg-turbo,
default accurate integer IDCT and fancy upsampling), converted to RGB, with the EXIF orientation
applied (ImageOps.exif_transpose), as raw interleaved 8-bit RGB rows. manifest.json lists every
fixture with its size and what it exercises.
"""
import io
import json
import os
import sys

import cv2
import numpy as np
from PIL import Image, ImageCms, ImageOps

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "jpeg")


def picture(width, height, seed=1):
    """A photo-like RGB picture: smooth gradients, hard edges, a disc, texture and noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    w, h = max(width - 1, 1), max(height - 1, 1)
    r = 255 * (x / w)
    g = 255 * (y / h)
    b = 128 + 100 * np.sin(x / 5.0) * np.cos(y / 7.0)
    disc = (x - width * 0.6) ** 2 + (y - height * 0.4) ** 2 < (min(width, height) * 0.3) ** 2
    r = np.where(disc, 230, r)
    g = np.where(disc, 40, g)
    b = np.where(disc, 60, b)
    stripe = (x.astype(int) // 6) % 2 == 0
    b = np.where((y > height * 0.7) & stripe, 20, b)
    rgb = np.stack([r, g, b], axis=-1) + rng.normal(0, 6, (height, width, 3))
    return np.clip(rgb, 0, 255).astype(np.uint8)


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


manifest = []


def expected(jpeg_bytes):
    with Image.open(io.BytesIO(jpeg_bytes)) as im:
        im.load()
        upright = ImageOps.exif_transpose(im)
        return np.asarray(upright.convert("RGB"))


def add(name, jpeg_bytes, **facts):
    with open(os.path.join(OUT, name + ".jpg"), "wb") as f:
        f.write(jpeg_bytes)
    rgb = expected(jpeg_bytes)
    with open(os.path.join(OUT, name + ".rgb"), "wb") as f:
        f.write(rgb.tobytes())
    manifest.append(dict(name=name, width=int(rgb.shape[1]), height=int(rgb.shape[0]), **facts))


def pillow(array, mode="RGB", **options):
    im = Image.fromarray(array, "RGB").convert(mode)
    buffer = io.BytesIO()
    im.save(buffer, "JPEG", **options)
    return buffer.getvalue()


def opencv(array, **params):
    flat = []
    for key, value in params.items():
        flat += [getattr(cv2, "IMWRITE_JPEG_" + key.upper()), value]
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(array, cv2.COLOR_RGB2BGR), flat)
    assert ok
    return data.tobytes()


def segments(data):
    """(offset, code, end) of each marker segment up to and including the first SOS header."""
    result, p = [], 2
    while p + 4 <= len(data):
        code = data[p + 1]
        length = data[p + 2] << 8 | data[p + 3]
        result.append((p, code, p + 2 + length))
        p += 2 + length
        if code == 0xDA:
            break
    return result


def hostile(photo, large):
    """Hand-made hostile inputs in regressions/ (next to any fuzzer crashers): each must decode or
    throw quickly with bounded memory."""
    folder = os.path.join(OUT, "regressions")
    os.makedirs(folder, exist_ok=True)
    # A tiny grey baseline file whose frame header claims 65000 x 3000 pixels (under the default
    # pixel limit): the scan data runs out long before the frame is full.
    gray = bytearray(pillow(photo, mode="L", quality=85))
    sof = next(offset for offset, code, _ in segments(gray) if code == 0xC0)
    gray[sof + 5:sof + 9] = bytes([3000 >> 8, 3000 & 255, 65000 >> 8, 65000 & 255])
    with open(os.path.join(folder, "huge_frame_tiny_data.jpg"), "wb") as f:
        f.write(gray)
    # A small progressive file whose first scan (DC, all components) is repeated 900 times.
    data = pillow(photo, quality=80, progressive=True)
    first_sos = data.index(b"\xff\xda")
    end = first_sos + 2
    while not (data[end] == 0xFF and data[end + 1] not in (0x00, 0xFF) and not 0xD0 <= data[end + 1] <= 0xD7):
        end += 1
    with open(os.path.join(folder, "repeated_dc_scans.jpg"), "wb") as f:
        f.write(data[:first_sos] + data[first_sos:end] * 900 + data[end:])
    # A DHT segment whose code counts claim 256 symbols of length 16, longer than the segment.
    base = bytearray(pillow(photo, quality=75))
    dht = next(offset for offset, code, _ in segments(base) if code == 0xC4)
    base[dht + 20] = 255
    with open(os.path.join(folder, "dht_counts_overflow.jpg"), "wb") as f:
        f.write(base)
    # More scans than JPEGDecoder.maxScans (1000): the same DC scan 1200 times.
    with open(os.path.join(folder, "too_many_scans.jpg"), "wb") as f:
        f.write(data[:first_sos] + data[first_sos:end] * 1200 + data[end:])


def ycck(array):
    """A YCCK file, which neither Pillow nor OpenCV writes: Pillow saves four chosen component values
    as Adobe CMYK (it stores 255 - value), then the APP14 transform byte is patched from 0 to 2, so
    libjpeg reads the components as Y, Cb, Cr, K. The reference is Pillow's decode of that file."""
    ycc = np.asarray(Image.fromarray(array, "RGB").convert("YCbCr"))
    k = (np.arange(array.shape[1])[None, :] * 255 // max(array.shape[1] - 1, 1)).repeat(array.shape[0], 0)
    stored = np.dstack([ycc, k.astype(np.uint8)])
    buffer = io.BytesIO()
    Image.fromarray(255 - stored, "CMYK").save(buffer, "JPEG", quality=90)
    data = bytearray(buffer.getvalue())
    adobe = next(offset for offset, code, _ in segments(data) if code == 0xEE)
    assert data[adobe + 4:adobe + 9] == b"Adobe" and data[adobe + 15] == 0
    data[adobe + 15] = 2
    return bytes(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith((".jpg", ".rgb", ".icc")) or old == "manifest.json":
            os.remove(os.path.join(OUT, old))
    photo = picture(61, 47)
    large = picture(320, 240, seed=2)
    # Qualities 5...100 in the three Pillow samplings.
    for quality in (5, 25, 50, 75, 90, 100):
        for sampling, label in ((0, "444"), (1, "422"), (2, "420")):
            add(f"q{quality}_{label}", pillow(photo, quality=quality, subsampling=sampling), process="baseline", sampling=label)
    # 4:4:0 and 4:1:1 need OpenCV's sampling-factor option.
    for label in ("440", "411", "420", "422"):
        factor = getattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR_" + label)
        add(f"opencv_{label}", opencv(photo, quality=80, sampling_factor=factor), process="baseline", sampling=label)
        add(f"opencv_{label}_progressive", opencv(photo, quality=80, sampling_factor=factor, progressive=1), process="progressive", sampling=label)
    add("opencv_411_restart", opencv(large, quality=85, sampling_factor=cv2.IMWRITE_JPEG_SAMPLING_FACTOR_411, rst_interval=3), process="baseline", sampling="411")
    # Progressive and optimised Huffman tables.
    for sampling, label in ((0, "444"), (1, "422"), (2, "420")):
        add(f"progressive_{label}", pillow(photo, quality=85, subsampling=sampling, progressive=True), process="progressive", sampling=label)
    add("large_420", pillow(large, quality=90), process="baseline", sampling="420")
    add("large_progressive_420", pillow(large, quality=90, progressive=True), process="progressive", sampling="420")
    add("large_progressive_444_q100", pillow(large, quality=100, subsampling=0, progressive=True), process="progressive", sampling="444")
    add("optimized_420", pillow(photo, quality=80, optimize=True), process="baseline", sampling="420")
    # Restart markers, sequential and progressive.
    add("restart_blocks_420", pillow(large, quality=80, restart_marker_blocks=5), process="baseline", sampling="420")
    add("restart_rows_444", pillow(large, quality=80, subsampling=0, restart_marker_rows=1), process="baseline", sampling="444")
    add("restart_progressive_420", pillow(large, quality=80, progressive=True, restart_marker_blocks=7), process="progressive", sampling="420")
    add("restart_progressive_opencv", opencv(large, quality=80, progressive=1, rst_interval=2), process="progressive", sampling="420")
    # Greyscale, CMYK (Pillow writes Adobe inverted CMYK) and RGB kept unconverted (Adobe transform 0).
    add("gray", pillow(photo, mode="L", quality=85), process="baseline", sampling="gray")
    add("gray_progressive", pillow(large, mode="L", quality=85, progressive=True), process="progressive", sampling="gray")
    add("cmyk", pillow(photo, mode="CMYK", quality=90), process="baseline", sampling="cmyk")
    add("cmyk_progressive", pillow(photo, mode="CMYK", quality=90, progressive=True), process="progressive", sampling="cmyk")
    add("rgb_adobe", pillow(photo, quality=90, keep_rgb=True, subsampling=0), process="baseline", sampling="rgb")
    add("ycck", ycck(photo), process="baseline", sampling="ycck")
    # Odd sizes.
    for (w, h) in ((1, 1), (2, 2), (3, 3), (7, 13), (17, 9)):
        for sampling, label in ((0, "444"), (1, "422"), (2, "420")):
            add(f"size_{w}x{h}_{label}", pillow(picture(w, h, seed=w * 100 + h), quality=90, subsampling=sampling), process="baseline", sampling=label)
    add("size_4001x3_420", pillow(picture(4001, 3, seed=3), quality=90), process="baseline", sampling="420")
    add("size_3x4001_420_progressive", pillow(picture(3, 4001, seed=4), quality=90, progressive=True), process="progressive", sampling="420")
    add("size_1x1_gray_progressive", pillow(picture(1, 1, seed=5), mode="L", quality=90, progressive=True), process="progressive", sampling="gray")
    # All eight EXIF orientations on a non-square picture.
    tall = picture(24, 16, seed=6)
    for value in range(1, 9):
        add(f"orientation_{value}", pillow(tall, quality=90, exif=exif_with_orientation(value)), process="baseline", sampling="420", orientation=value)
    # An ICC profile (sRGB) stored in APP2, and one large enough to need several chunks.
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    srgb = srgb[:24] + bytes(12) + srgb[36:]  # zero the creation date so the fixture is reproducible
    with open(os.path.join(OUT, "icc_srgb.icc"), "wb") as f:
        f.write(srgb)
    add("icc_srgb", pillow(photo, quality=85, icc_profile=srgb), process="baseline", sampling="420", icc="icc_srgb.icc")
    big_icc = bytes((i * 7 + 3) % 256 for i in range(150_000))
    with open(os.path.join(OUT, "icc_multichunk.icc"), "wb") as f:
        f.write(big_icc)
    add("icc_multichunk", pillow(picture(8, 8, seed=7), quality=85, icc_profile=big_icc), process="baseline", sampling="420", icc="icc_multichunk.icc")
    hostile(photo, large)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("# JPEG fixtures\n\nGenerated by `Tools/make_jpeg_fixtures.py` (run with `/work/venv/bin/python Tools/make_jpeg_fixtures.py`); do not edit.\n\n"
                "`NAME.jpg` is encoded by Pillow or OpenCV (libjpeg-turbo); `NAME.rgb` is Pillow's decode of it (libjpeg-turbo ISLOW IDCT,\n"
                "fancy upsampling) as raw RGB rows, EXIF orientation applied; `manifest.json` lists sizes and what each file exercises.\n"
                "`regressions/` holds hostile inputs: the four made by the same script (huge frame with tiny data, 900 repeated\n"
                "DC scans, 1200 scans, overflowing DHT counts) and any crasher found by `Tests/Fuzz/FuzzJPEG`, kept by hand.\n")
    print(len(manifest), "fixtures,", sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT)), "bytes")


main()
