"""Between two games the Python host empties the bot's scratch folders (docs/security.md):
whatever a game leaves there would tell the next one, dealt the same deck with the seats
swapped, the other seats' hands. Here the emptying itself, on plain folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.seats.host import _empty


def nest(top: Path, depth: int) -> None:
    """A chain of ``depth`` folders under ``top`` with a note at the bottom, made by
    steps (no path that long could be named at once)."""
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("a", dir_fd=fd)
        inner = os.open("a", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with os.fdopen(os.open("memo", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as out:
        out.write("the other seats' hands")
    os.close(fd)


def test_folders_made_read_only_are_emptied(tmp_path: Path) -> None:
    """chmod 500 on a folder kept its notes from the host, which runs as the bot's user."""
    locked = tmp_path / "locked"
    (locked / "sub").mkdir(parents=True)
    (locked / "sub" / "memo").write_text("notes")
    (locked / "sub").chmod(0o500)
    locked.chmod(0o000)
    assert _empty(str(tmp_path)) is False
    assert list(tmp_path.iterdir()) == []


def test_folders_nested_deeper_than_a_path_or_the_stack_are_emptied(tmp_path: Path) -> None:
    """3,000 folders deep: the recursive walk stalled the host past its word's deadline
    (a 5 s timeout a game); paths that long cannot even be named."""
    nest(tmp_path, 3000)
    try:
        assert _empty(str(tmp_path)) is False
        assert list(tmp_path.iterdir()) == []
    finally:  # pytest's own clean-up of old temporary folders recurses, and would fail
        subprocess.run(["rm", "-rf", str(tmp_path / "a")], check=True, timeout=120)


def test_links_are_removed_not_followed_and_empty_folders_go_too(tmp_path: Path) -> None:
    """A link out of the scratch folder loses only itself; a folder's name is a note too."""
    scratch, outside = tmp_path / "scratch", tmp_path / "outside"
    scratch.mkdir()
    outside.mkdir()
    (outside / "keep").write_text("the organiser's")
    (scratch / "link").symlink_to(outside)
    (scratch / "10H-6H-7S").mkdir()
    assert _empty(str(scratch)) is False
    assert list(scratch.iterdir()) == [] and (outside / "keep").exists()


def test_what_cannot_be_emptied_is_said_to_be_left(tmp_path: Path) -> None:
    """Then the host ends its sandbox rather than say the game is forgotten: here it may
    open too few files to walk a chain of 50 folders."""
    nest(tmp_path, 50)
    code = ("import resource, sys; from arena.seats.host import _empty; "
            "resource.setrlimit(resource.RLIMIT_NOFILE, (20, 20)); "
            f"print(_empty({str(tmp_path)!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr
    assert (tmp_path / "a").exists()
