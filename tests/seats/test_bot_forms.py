"""Every bot form, everywhere: a built-in name, ``package.module:Class``, ``file.py:Class``,
``file.py`` and a command line start in ``arena play``, ``arena run`` and ``arena sprt``; a bot
split over several files imports its helpers and reads its data beside it, confined or not,
without ``read:``; and the tournament's results folder stays empty to it even when it lies in
the bot's own folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.errors import BadInput
from arena.seats import confine
from arena.seats.bot import BUILTIN_BOTS, bot_class_in, bot_target, module_file

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
needs_namespaces = pytest.mark.skipif(not confine.available(),
                                      reason="this system does not allow user namespaces")
JS_BOT = Path(__file__).parents[2] / "examples" / "js_bot.js"

HELPER = """\
def pick(cards):
    return max(cards, key=lambda c: (c.rank, c.suit))
"""

# A bot in three files: itself, a helper module and a data file beside it. It crashes (a
# fault of its seat) if it cannot read its data, or if it can see anything in the results
# folder it was told of, so a run without faults proves both.
SPLIT_BOT = """\
import json
from pathlib import Path

from helper import pick
from arena.actions import Draw, Play

HERE = Path(__file__).parent
SETTINGS = json.loads((HERE / "settings.json").read_text())


class SplitBot:
    def draw(self, view):
        results = HERE / "results"
        if results.is_dir() and any(results.rglob("*")):
            raise RuntimeError("saw the results folder: " + str(list(results.iterdir())))
        return Draw(SETTINGS["source"])

    def play(self, view):
        return Play(discard=pick(view.discardable))
"""


@pytest.fixture
def contest(tmp_path: Path) -> Path:
    """A folder holding a split bot, its helper and data, and (later) the results."""
    folder = tmp_path / "contest"
    folder.mkdir()
    (folder / "helper.py").write_text(HELPER)
    (folder / "settings.json").write_text(json.dumps({"source": "stock"}))
    (folder / "split_bot.py").write_text(SPLIT_BOT)
    shutil.copy(JS_BOT, folder / "js_bot.js")
    return folder


def arena(*args: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The real ``arena`` command, as a user runs it."""
    script = Path(sys.executable).with_name("arena")
    return subprocess.run([str(script), *args], cwd=cwd, text=True, capture_output=True,
                          timeout=timeout, check=False)


def faults_of(results: Path) -> dict[str, int]:
    """Fault counts per bot over a results folder's games."""
    out: dict[str, int] = {}
    for line in (results / "games.jsonl").read_text().splitlines():
        for seat in json.loads(line)["seats"]:
            out[seat["bot"]] = out.get(seat["bot"], 0) + sum(seat["faults"].values())
    return out


# --------------------------------------------------------------------------- the forms


def test_every_python_form_names_a_class_without_running_the_bot(contest: Path) -> None:
    (contest / "boom.py").write_text("raise SystemExit('ran')\nclass Boom:\n"
                                     "    def draw(self, view): ...\n")
    assert bot_target("greedy", contest) == BUILTIN_BOTS["greedy"]
    assert bot_target("bots.greedy:GreedyBot", contest) == "bots.greedy:GreedyBot"
    assert bot_target("split_bot.py", contest) == f"{contest / 'split_bot.py'}:SplitBot"
    assert bot_target("split_bot.py:SplitBot", contest) == \
        f"{contest / 'split_bot.py'}:SplitBot"
    assert bot_class_in(contest / "boom.py") == "Boom"  # read, not run


@pytest.mark.parametrize(("source", "message"), [
    ("class A:\n    def draw(self, v): ...\nclass B:\n    def play(self, v): ...\n",
     "several bot classes (A, B): name one, as two.py:A"),
    ("class Helper:\n    pass\n", "no bot class (one with draw(view) and play(view)); "
                                  "classes defined: Helper"),
    ("def draw(view): ...\n", "classes defined: none"),
    ("class (:\n", "cannot be read as Python (SyntaxError"),
])
def test_a_file_without_exactly_one_bot_class_is_refused_naming_them(
        tmp_path: Path, source: str, message: str) -> None:
    (tmp_path / "two.py").write_text(source)
    with pytest.raises(BadInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        bot_target("two.py", tmp_path)


@pytest.mark.parametrize("text", ["", "nobot", "a.b", "pkg.mod:", "x.py:not-a-name", ":Cls"])
def test_a_name_in_no_form_says_which_forms_there_are(tmp_path: Path, text: str) -> None:
    with pytest.raises(BadInput, match=r"expected a built-in bot .*'path/file\.py'"):
        bot_target(text, tmp_path)


@pytest.mark.parametrize("form", ["pipe.py", "pipe.py:Bot", "folder.py", "folder.py:Bot"])
def test_a_bot_file_that_is_no_regular_file_is_refused_without_reading_it(
        tmp_path: Path, form: str) -> None:
    """A named pipe would block whoever reads it until a writer comes: naming one as a bot's
    file must not stall the arena before any game."""
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "folder.py").mkdir()
    done = arena("play", "indian13", form, "random", cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert f"{form.partition(':')[0]}' is not a regular file; expected a Python file" in done.stderr


@pytest.mark.parametrize(("source", "message"), [
    (b"x = " + b"-" * 1_000_000 + b"1\n", "cannot be read as Python (MemoryError: nested too "
                                          "deeply for the parser)"),
    (b"# " + b"x" * (17 << 20) + b"\n", "larger than 16 MiB, too large to look for its bot "
                                        "class in; name the class, as hostile.py:Class"),
])
def test_a_bot_file_the_parser_cannot_take_is_one_line(tmp_path: Path, source: bytes,
                                                       message: str) -> None:
    """Its class is looked for in the arena's own process: a file that exhausts the parser,
    or one too large to read there, is a one-line refusal, not a traceback."""
    (tmp_path / "hostile.py").write_bytes(source)
    done = arena("play", "indian13", "hostile.py", "random", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr


def test_a_file_bot_with_several_classes_is_one_line_in_play(tmp_path: Path) -> None:
    (tmp_path / "two.py").write_text("class A:\n    def draw(self, v): ...\n"
                                     "class B:\n    def play(self, v): ...\n")
    done = arena("play", "indian13", "two.py", "random", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "bot 0 'two.py'" in done.stderr
    assert "several bot classes (A, B)" in done.stderr


@pytest.mark.parametrize("isolation", ["inprocess", pytest.param("process",
                                                                 marks=needs_namespaces)])
def test_arena_play_seats_every_python_form(contest: Path, isolation: str) -> None:
    """A built-in, a module path, ``file.py:Class`` and a bare ``file.py`` whose helper and
    data sit beside it: each plays a clean game, confined or not."""
    package = contest / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mine.py").write_text("from bots.random_bot import RandomBot\n\n\n"
                                     "class Mine(RandomBot):\n    pass\n")
    done = arena("play", "indian13", "greedy", "mypkg.mine:Mine", "split_bot.py:SplitBot",
                 "split_bot.py", "--isolation", isolation, cwd=contest)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[3:]]
    assert [r[1] for r in rows] == ["greedy", "Mine", "SplitBot", "SplitBot"]
    assert all(r[-1] == "0" for r in rows), done.stdout  # no faults


@pytest.mark.parametrize(("source", "seated", "refused"), [
    ("from bots.greedy import GreedyBot\n\n\nclass Mine(GreedyBot):\n    pass\n", "Mine", ""),
    ("from typing import NamedTuple\nfrom bots.greedy import GreedyBot\n\n\n"
     "class Move(NamedTuple):\n    x: int\n\n\nclass Mine(GreedyBot):\n    pass\n", "",
     "defines several classes derived from others (Move, Mine): name one, as mine.py:Mine"),
    ("class Helper(dict):\n    pass\n", "", "class 'Helper' has no draw(view) method"),
])
def test_a_bare_file_whose_bot_inherits_its_moves_is_seated(
        tmp_path: Path, source: str, seated: str, refused: str) -> None:
    """``class Mine(GreedyBot): pass`` in a file named alone: its moves are inherited, so
    no method of its own shows in the file; the one derived class is the bot. It used to
    be refused: 'no bot class ...; classes defined: Mine'."""
    (tmp_path / "mine.py").write_text(source)
    done = arena("play", "indian13", "mine.py", "random", "--isolation", "inprocess",
                 cwd=tmp_path)
    if seated:
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[3].split()[1] == seated
    else:
        assert done.returncode == 2 and refused in done.stderr, done.stderr


@needs_node
def test_arena_play_seats_a_command_bot_that_requires_its_own_module(contest: Path) -> None:
    (contest / "lib.js").write_text("module.exports = { source: 'stock' };\n")
    text = JS_BOT.read_text().replace('"use strict";', '"use strict";\n'
                                      'const lib = require("./lib.js");', 1)
    (contest / "js_bot.js").write_text(text)
    done = arena("play", "indian13", "random", "--command", "node js_bot.js", cwd=contest)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[3:]]
    assert [r[1] for r in rows] == ["random", "js_bot"] and rows[1][-1] == "0"


def test_arena_play_refuses_a_program_file_that_is_not_executable(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print('hello')\n")
    done = arena("play", "indian13", "random", "--command", "./bot.py", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "program './bot.py' is not executable: mark it so (chmod +x) or name its " \
        "interpreter first, e.g. [python3, ./bot.py]" in done.stderr


@needs_namespaces
def test_a_program_the_confined_bot_cannot_see_is_named_in_one_line(tmp_path: Path) -> None:
    """A program the arena finds may still be missing inside the bot's confinement (here a
    link in the bot's folder to a script in a folder it is not given): its start error says
    so, instead of a bare "No such file or directory"."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    script = hidden / "real.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    own = tmp_path / "mine"
    own.mkdir()
    (own / "bot").symlink_to(script)
    done = arena("play", "indian13", "random", "--command", str(own / "bot"), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"cannot run '{own / 'bot'}' inside the bot's confinement (No such file or " \
        "directory); it sees the system's programs, its own folder and its read: paths" \
        in done.stderr


def test_arena_play_refuses_a_command_that_is_not_found(tmp_path: Path) -> None:
    done = arena("play", "indian13", "random", "--command", "no-such-program x", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "bot 1 --command 'no-such-program x': program 'no-such-program' not found" in \
        done.stderr


# --------------------------------------------------------------------------- tournaments


def config(folder: Path, isolation: str) -> Path:
    path = folder / "contest.yaml"
    node = shutil.which("node")
    command = f"  - name: js\n    command: [{node}, js_bot.js]\n" if node else ""
    path.write_text(textwrap.dedent(f"""\
        name: forms
        variant: indian13
        options: {{players: 2}}
        isolation: {isolation}
        bots:
          - name: greedy
            module: greedy
          - name: split
            module: split_bot.py
          - name: split-class
            module: split_bot.py:SplitBot
          - name: mine
            module: bots.random_bot:RandomBot
        """) + command + textwrap.dedent("""\
        format: {type: round-robin, games: 2, duplicate: true}
        workers: 2
        seed: 3
        """))
    return path


@pytest.mark.parametrize("isolation", [pytest.param("inprocess", marks=pytest.mark.slow),
                                       pytest.param("process", marks=needs_namespaces)])
def test_arena_run_plays_every_form_and_the_bots_see_no_results(contest: Path,
                                                                 isolation: str) -> None:
    """The results folder lies inside the split bot's own folder, which the bot may read:
    confined, it sees it empty, or it would crash."""
    path = config(contest, isolation)
    done = arena("run", str(path), "--out", "results", cwd=contest)
    assert done.returncode == 0, done.stderr
    faults = faults_of(contest / "results" / "forms")
    expected = {"greedy", "split", "split-class", "mine"} | ({"js"} if shutil.which("node")
                                                            else set())
    assert set(faults) == expected
    if isolation == "process":
        assert faults == dict.fromkeys(expected, 0), faults
    else:  # trusted mode: the bot shares the arena's view of the disk, results and all
        assert faults["greedy"] == 0 and faults["mine"] == 0


@needs_namespaces
@pytest.mark.parametrize(("candidate", "baseline"), [
    ("split", "greedy"), pytest.param("split-class", "mine", marks=pytest.mark.slow),
    pytest.param("js", "greedy", marks=[needs_node, pytest.mark.slow])])
def test_arena_sprt_plays_every_form(contest: Path, candidate: str, baseline: str) -> None:
    """A bare file, a file's class, a module path, a built-in and a command, in the SPRT."""
    path = config(contest, "process")
    done = arena("sprt", str(path), "--candidate", candidate, "--baseline", baseline,
                 "--max-games", "4", "--workers", "2", cwd=contest)
    assert done.returncode in (0, 1, 3), done.stderr  # decided or not: it played
    faults = faults_of(contest / "results" / "forms-sprt")
    assert set(faults) == {candidate, baseline} and faults == dict.fromkeys(faults, 0), faults


def test_two_bots_own_modules_of_one_name_are_refused_in_one_process(tmp_path: Path) -> None:
    """In process the second bot's `from helper import choose` got the first bot's helper
    (one module a name per process), and played as the first bot, silently."""
    for student, letter in (("olivia", "O"), ("quinn", "Q")):
        (tmp_path / student).mkdir()
        (tmp_path / student / "helper.py").write_text(f"MARK = {letter!r}\n")
        (tmp_path / student / "bot.py").write_text(
            "from helper import MARK\nfrom bots.random_bot import RandomBot\n\n\n"
            "class Bot(RandomBot):\n    pass\n")
    bots = ("olivia/bot.py:Bot", "quinn/bot.py:Bot")
    done = arena("play", "indian13", *bots, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "its module 'helper' (quinn/helper.py) is another bot's (olivia/helper.py) by " \
        "name: bots run in one process share their modules' names; use isolation: process, " \
        "or rename one" in done.stderr
    assert arena("play", "indian13", *bots, "--isolation", "process",
                 cwd=tmp_path).returncode == 0


def test_a_module_under_a_local_bots_folder_is_told_to_be_named_as_a_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bots.honest:HonestBot` beside a folder bots/ said only "no module found", though the
    file was there: `bots` is always the built-in bots' package (README)."""
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "honest.py").write_text("class HonestBot: ...\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadInput, match=r"^no module 'bots.honest' found in .* \('bots' is "
                                       r"always the installed built-in bots package; name "
                                       r"the file instead: bots/honest.py:Class\)$"):
        module_file("bots.honest")


PEEK_BOT = """\
from pathlib import Path

from arena.actions import Draw, Play

LOGS = Path(__file__).parent / "logs"


class PeekBot:
    def draw(self, view):
        if LOGS.is_dir() and any(LOGS.rglob("*")):
            raise RuntimeError("saw the logs: " + str(sorted(LOGS.iterdir())))
        return Draw("stock")

    def play(self, view):
        return Play(discard=view.discardable[0])
"""


@needs_namespaces
def test_arena_play_s_logs_folder_is_empty_to_its_bots(contest: Path) -> None:
    """docs/security.md: another seat's hand never reaches a bot. ``arena play --logs``
    inside the bots' folder let a confined bot read the other seat's live stderr log."""
    (contest / "peek_bot.py").write_text(PEEK_BOT)
    done = arena("play", "indian13", "peek_bot.py", "greedy", "--isolation", "process",
                 "--logs", "logs", "--seed", "4", "-o", "draw_cap=6", cwd=contest)
    assert done.returncode == 0, done.stderr
    logs = {p.name: p.read_text() for p in (contest / "logs").glob("*.stderr.log")}
    assert logs and not any("saw the logs" in text for text in logs.values()), logs

