"""Built-in criteria on image files (Pillow, imported only when a criterion runs).

An image over `MAX_PIXELS` is refused before its pixels are decoded (an error outcome that
names the cap): a small PNG can claim a size that takes gigabytes to decode.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from rewardkit.core._untrusted import CapExceeded
from rewardkit.criteria._registry import builtin
from rewardkit.criteria.files import _opened, _warn_unreadable

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["image_similarity", "image_size_equals"]

MAX_PIXELS = 25_000_000
"""The largest image (width × height) decoded; 25 megapixels, e.g. 5000 × 5000."""


def _open(crit: str, workspace: Path, path: str, *, decode: bool) -> Image | None:
    """Open a confined image (decoding its pixels if `decode`), or warn and return None.

    Raises:
        ImportError: Pillow is not installed.
    """
    try:
        from PIL import Image as PILImage
    except ImportError:
        raise ImportError(f"{crit} needs Pillow: pip install 'rewardkit[image]'") from None
    with _opened(crit, workspace, path) as handle:
        if handle is None:
            return None
        data = io.BytesIO(handle.read())  # capped by the open; Pillow reads lazily otherwise
    image = None
    try:
        image = PILImage.open(data)
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise CapExceeded(
                f"{crit}: '{path}' is {width} x {height} pixels, over the {MAX_PIXELS:,}-pixel cap"
            )
        if decode:
            image.load()
        return image
    except CapExceeded:
        image.close()  # type: ignore[union-attr]
        raise
    except (OSError, ValueError, SyntaxError, EOFError, PILImage.DecompressionBombError) as exc:
        if image is not None:
            image.close()
        _warn_unreadable(crit, path, exc)
        return None


@builtin("Pixel similarity: {path1} vs {path2}")
def image_similarity(workspace: Path, path1: str, path2: str) -> float:
    """The fraction of pixels identical in RGBA; 0.0 if the sizes differ."""
    first = _open("image_similarity", workspace, path1, decode=True)
    if first is None:
        return 0.0
    from PIL import ImageChops  # after `_open`, which explains a missing Pillow

    with first:
        second = _open("image_similarity", workspace, path2, decode=True)
        if second is None:
            return 0.0
        with second:
            if first.size != second.size:
                return 0.0
            diff = ImageChops.difference(first.convert("RGBA"), second.convert("RGBA"))
    red, green, blue, alpha = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(red, green), ImageChops.lighter(blue, alpha))
    total = diff.width * diff.height
    return worst.histogram()[0] / total if total else 0.0


@builtin("Check that {path} has dimensions {width}x{height}")
def image_size_equals(workspace: Path, path: str, width: int, height: int) -> bool:
    """True if the image is `width` pixels wide and `height` pixels high."""
    image = _open("image_size_equals", workspace, path, decode=False)
    if image is None:
        return False
    with image:
        return image.size == (width, height)
