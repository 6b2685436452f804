"""Built-in image criteria (Pillow)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rewardkit.criteria import images

Image = pytest.importorskip("PIL.Image")


def run(crit: str, ws: Path, *args: object) -> object:
    return getattr(images, crit).make_check(args).evaluate(ws)


def save(path: Path, size: tuple[int, int], color: object, mode: str = "RGBA") -> None:
    Image.new(mode, size, color).save(path)


def test_identical_images(ws: Path) -> None:
    save(ws / "a.png", (8, 4), (10, 20, 30, 255))
    save(ws / "b.png", (8, 4), (10, 20, 30), mode="RGB")  # same pixels once in RGBA
    assert run("image_similarity", ws, "a.png", "b.png") == 1.0
    assert run("image_similarity", ws, "a.png", "a.png") == 1.0


def test_fraction_of_identical_pixels(ws: Path) -> None:
    first = Image.new("RGBA", (10, 10), (0, 0, 0, 255))
    second = first.copy()
    for x in range(10):
        for y in range(3):
            second.putpixel((x, y), (0, 0, 1, 255))  # one channel off by one
    second.putpixel((9, 9), (0, 0, 0, 254))  # alpha counts too
    first.save(ws / "a.png")
    second.save(ws / "b.png")
    result = run("image_similarity", ws, "a.png", "b.png")
    assert isinstance(result, float)
    assert result == pytest.approx(69 / 100)


def test_different_sizes_score_zero(ws: Path) -> None:
    save(ws / "a.png", (8, 4), "red")
    save(ws / "b.png", (4, 8), "red")
    assert run("image_similarity", ws, "a.png", "b.png") == 0.0


@pytest.mark.parametrize("missing", ["path1", "path2"])
def test_similarity_missing_file(ws: Path, missing: str) -> None:
    save(ws / "a.png", (2, 2), "red")
    args = ("gone.png", "a.png") if missing == "path1" else ("a.png", "gone.png")
    msg = r"^image_similarity: 'gone.png' not found in workspace, assigning reward 0$"
    with pytest.warns(UserWarning, match=msg):
        assert run("image_similarity", ws, *args) == 0.0


def test_not_an_image(ws: Path) -> None:
    (ws / "a.png").write_text("not an image")
    save(ws / "b.png", (2, 2), "red")
    with pytest.warns(UserWarning, match=r"'a.png' could not be read \(UnidentifiedImageError\)"):
        assert run("image_similarity", ws, "a.png", "b.png") == 0.0
    with pytest.warns(UserWarning, match=r"^image_size_equals: 'a.png' could not be read"):
        assert run("image_size_equals", ws, "a.png", 2, 2) is False


def test_truncated_image(ws: Path) -> None:
    save(ws / "a.png", (64, 64), "red")
    data = (ws / "a.png").read_bytes()
    (ws / "b.png").write_bytes(data[: len(data) // 2])
    with pytest.warns(UserWarning, match=r"'b.png' could not be read \(OSError\)"):
        assert run("image_similarity", ws, "a.png", "b.png") == 0.0


def test_image_size_equals(ws: Path) -> None:
    save(ws / "a.png", (640, 480), "blue", mode="RGB")
    assert run("image_size_equals", ws, "a.png", 640, 480) is True
    assert run("image_size_equals", ws, "a.png", 480, 640) is False
    with pytest.warns(UserWarning, match=r"^image_size_equals: 'b.png' not found in workspace"):
        assert run("image_size_equals", ws, "b.png", 640, 480) is False


@pytest.mark.parametrize("kind", ["absolute-symlink", "dotdot", "symlink"])
@pytest.mark.parametrize("which", ["path1", "path2", "size"])
def test_never_reads_outside(ws: Path, tmp_path: Path, kind: str, which: str) -> None:
    outside = tmp_path / "outside" / "a.png"
    outside.parent.mkdir()
    save(outside, (3, 3), "red")
    save(ws / "a.png", (3, 3), "red")
    (ws / "link.png").symlink_to(outside)
    path = {"absolute-symlink": str(ws / "link.png"), "dotdot": os.path.relpath(outside, ws)}.get(
        kind, "link.png"
    )
    crit = "image_size_equals" if which == "size" else "image_similarity"
    args: tuple[object, ...] = {
        "size": (path, 3, 3),
        "path1": (path, "a.png"),
        "path2": ("a.png", path),
    }[which]
    with pytest.warns(UserWarning, match=rf"^{crit}: .*assigning reward 0"):
        assert not run(crit, ws, *args)


@pytest.mark.parametrize(
    ("crit", "args"), [("image_similarity", ("a", "b")), ("image_size_equals", ("a", 1, 1))]
)
def test_without_pillow(
    ws: Path, monkeypatch: pytest.MonkeyPatch, crit: str, args: tuple[object, ...]
) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(
        ImportError, match=rf"^{crit} needs Pillow: pip install 'rewardkit\[image\]'"
    ):
        run(crit, ws, *args)


def test_descriptions() -> None:
    check = images.image_similarity.make_check(("out.png", "ref.png"))
    assert check.description == "Pixel similarity: out.png vs ref.png"
    assert check.name == "image_similarity:out.png"
    check = images.image_size_equals.make_check(("out.png", 64, 32))
    assert check.description == "Check that out.png has dimensions 64x32"
