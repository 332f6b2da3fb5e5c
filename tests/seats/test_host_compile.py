"""A Python bot's own source is compiled once, by its host, and never run there.

A confined bot's folder is read-only, so no ``__pycache__`` can be written beside it; each
game's child would otherwise compile the bot afresh. The host compiles the bot's file and
the modules it imports from its own folder (compiling runs none of the bot's code), and a
game's child imports them from that code as long as the file still holds the same source.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from arena.referee import FaultEvent, Referee
from arena.seats import host
from arena.seats.bot import BotSpec
from arena.seats.make import make_seat
from arena.variants import find_variant

BOT = textwrap.dedent("""\
    from pathlib import Path

    import helper
    from arena.actions import Draw, Play

    Path(__file__).with_name("ran.txt").write_text("the bot's code ran")


    class Bot:
        def draw(self, view):
            return Draw("stock")

        def play(self, view):
            if view.hand_size > 99:
                pass
            return Play(discard=view.drawn)
    """)

# In a fresh interpreter, as a host does: preload (which compiles), then, as a game's child
# does, count what is compiled while the bot is imported. Prints the compiled paths.
CHILD = textwrap.dedent("""\
    import builtins, json, sys
    from pathlib import Path
    from arena.seats import host
    target = sys.argv[1]
    host.preload(target)
    ran_in_host = Path(target.rpartition(":")[0]).with_name("ran.txt").exists()
    if len(sys.argv) > 2:
        Path(target.rpartition(":")[0]).write_text(sys.argv[2])  # changed after the host read it
    compiled = []
    real = builtins.compile
    def counting(source, path, *args, **kwargs):
        compiled.append(str(path))
        return real(source, path, *args, **kwargs)
    builtins.compile = counting
    host.use_precompiled()
    from arena.seats.bot import load_class
    cls = load_class(target)
    print(json.dumps({"compiled": compiled, "ran_in_host": ran_in_host,
                      "value": getattr(sys.modules[cls.__module__], "VALUE", None)}))
    """)


def _contest(tmp_path: Path) -> Path:
    (tmp_path / "helper.py").write_text("HELPED = True\n")
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    return bot


def _child(bot: Path, *changed: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # as in a read-only folder
    out = subprocess.run([sys.executable, "-c", CHILD, f"{bot}:Bot", *changed], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_the_host_compiles_the_bot_and_its_own_modules_and_runs_none_of_them(
        tmp_path: Path) -> None:
    bot = _contest(tmp_path)
    result = _child(bot)
    assert result["ran_in_host"] is False  # compiled, not run: the file appears in the child
    assert (tmp_path / "ran.txt").exists()
    compiled = result["compiled"]
    assert isinstance(compiled, list)
    assert str(bot) not in compiled and str(tmp_path / "helper.py") not in compiled


def test_a_bot_file_changed_after_the_host_compiled_it_is_compiled_again(
        tmp_path: Path) -> None:
    bot = _contest(tmp_path)
    result = _child(bot, BOT + "\nVALUE = 2\n")
    assert result["value"] == 2  # the file as it is now, not as the host read it
    assert result["compiled"] == [str(bot)]  # the helper has not changed: not compiled


def test_a_precompiled_bot_that_raises_names_its_own_file_and_line(tmp_path: Path) -> None:
    bot = tmp_path / "raiser.py"
    bot.write_text(textwrap.dedent("""\
        class Raiser:
            def draw(self, view):
                raise ValueError("no draw today")

            def play(self, view):
                raise ValueError("no play today")
        """))
    seats = [make_seat(BotSpec("raiser", f"{bot}:Raiser"), isolation="process"),
             make_seat(BotSpec("random", "bots.random_bot:RandomBot"), isolation="process")]
    try:
        events: list[FaultEvent] = []
        Referee(find_variant("indian13"), seats, ["raiser", "random"], seed=3,
                options={"players": 2}, on_fault=events.append).play()
    finally:
        for seat in seats:
            seat.close()
    details = " ".join(event.detail for event in events if event.seat == 0)
    assert f'File "{bot}", line 3, in draw' in details
    assert "ValueError: no draw today" in details


def test_the_host_s_code_serves_an_import_that_names_its_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From Python 3.15 the import system passes the module's name to ``source_to_code`` as
    a third argument. The child's hook takes it and still serves the host's code; it used to
    refuse it, and on 3.15 no Python bot could start in a seat process."""
    bot = tmp_path / "mine.py"
    bot.write_text("ANSWER = 42\n", encoding="utf-8")
    monkeypatch.setattr(host, "COMPILED", {})
    monkeypatch.setattr(SourceFileLoader, "source_to_code", SourceFileLoader.source_to_code,
                        raising=False)  # the hook below is undone with the test
    host.precompile([bot])
    host.use_precompiled()
    loader = SourceFileLoader("mine", str(bot))
    code = loader.source_to_code(bot.read_bytes(), str(bot), "mine")  # as 3.15 calls it
    assert code is host.COMPILED[os.path.realpath(bot)][1]
