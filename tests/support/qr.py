"""Reading QR codes back out of a terminal, as a phone's camera would read them off the screen:
the characters segno draws (`terminal(compact=True)`: each character two modules tall, light ones
drawn as blocks) become a pixel matrix, and zxing-cpp decodes it. Never the text printed beside a
code: a test that read that would pass with a code that opens nothing."""

from __future__ import annotations

import numpy as np
import zxingcpp

# Each character of a compact terminal code: (top module light, bottom module light).
HALVES = {"█": (True, True), "▀": (True, False), "▄": (False, True), " ": (False, False)}
SCALE = 4  # pixels a module: zxing-cpp reads a module a pixel poorly
QUIET = 4  # light modules around the code, as a screen's white around it


def code_blocks(text: str) -> list[list[str]]:
    """Each run of consecutive lines drawn only with the code's characters (and at least one block)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in [*text.splitlines(), ""]:
        drawn = line.rstrip("\n")
        if drawn.strip() and set(drawn) <= set(HALVES) and set(drawn) - {" "}:
            current.append(drawn)
        else:
            if len(current) >= 5:  # a heading underlined with blocks is no code
                blocks.append(current)
            current = []
    return blocks


def pixels(block: list[str]) -> np.ndarray:
    """The block as a greyscale image: 255 light, 0 dark, with a quiet zone around it."""
    width = max(len(line) for line in block)
    rows: list[list[bool]] = []
    for line in block:
        halves = [HALVES[char] for char in line.ljust(width)]
        rows.append([top for top, _ in halves])
        rows.append([bottom for _, bottom in halves])
    # The last character row's lower half is the terminal's own background below the code's border.
    while rows and not any(rows[-1]):
        rows.pop()
    light = np.array(rows, dtype=bool)
    light = np.pad(light, QUIET, constant_values=True)
    image = np.where(light, 255, 0).astype(np.uint8)
    return np.kron(image, np.ones((SCALE, SCALE), dtype=np.uint8))


def decode_terminal_qr_codes(text: str) -> list[str]:
    """The text of every QR code drawn in `text`, top to bottom; a block that does not decode fails."""
    found = []
    for number, block in enumerate(code_blocks(text), start=1):
        read = zxingcpp.read_barcodes(pixels(block), formats=zxingcpp.BarcodeFormat.QRCode)
        assert len(read) == 1, f"code {number} of the text does not decode as one QR code"
        found.append(read[0].text)
    return found
