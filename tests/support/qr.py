"""Reading QR codes back as a phone's camera reads them off a screen, never from the text printed
beside them (a test that read that would pass with a code that opens nothing).

- `decode_terminal_qr_codes`: the codes a terminal shows. The characters segno draws
  (`terminal(compact=True)`: each character two modules tall, light ones drawn as blocks) become a
  pixel matrix, and zxing-cpp decodes it.
- `decode_page_qr_code`: a code a page shows as inline SVG (the Share screen), drawn on a canvas
  and decoded the same way."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

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


# Draws the page's QR code (an inline <svg>) onto a canvas and hands back its grey levels, row by
# row: what a camera pointed at the screen would see, without the text beside it.
_SVG_PIXELS = """
async (svg) => {
  const drawn = svg.cloneNode(true);
  drawn.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  const image = new Image();
  image.src = "data:image/svg+xml," + encodeURIComponent(drawn.outerHTML);
  await image.decode();
  const size = 400;
  const canvas = Object.assign(document.createElement("canvas"), { width: size, height: size });
  const context = canvas.getContext("2d");
  context.fillStyle = "#fff";
  context.fillRect(0, 0, size, size);
  context.drawImage(image, 20, 20, size - 40, size - 40);
  const { data } = context.getImageData(0, 0, size, size);
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = [];
    for (let x = 0; x < size; x++) row.push(data[(y * size + x) * 4]);
    rows.push(row);
  }
  return rows;
}
"""


def decode_page_qr_code(locator) -> str:
    """The text of the QR code drawn by the <svg> element `locator` finds in a page."""
    rows = locator.evaluate(_SVG_PIXELS)
    read = zxingcpp.read_barcodes(np.array(rows, dtype=np.uint8), formats=zxingcpp.BarcodeFormat.QRCode)
    assert len(read) == 1, "the page's code does not decode as one QR code"
    return read[0].text


def on_loopback(url: str) -> str:
    """A join link as this machine opens it: the same server (listening on every interface) reached
    on 127.0.0.1. A test sends nothing to the machine's LAN address: that leaves loopback."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"127.0.0.1{port}"))
