"""Bots start before any game, and only where the config puts them (DESIGN "Bots").

With ``isolation: process`` no code of a bot runs in the arena's own process: loading a
config hashes the bot's files, and ``validate``, ``run``, ``play`` and ``sprt`` start it
through the host, confined, as its games will. A bot that cannot start is refused in one
line naming it, the config line and its own first error, before anything is written. What a
bot raises reaches its stderr log, ``arena play -v`` and, for a mostly broken bot, the
console at the end of a run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import bot_target, reporting_bot_config, writable_by_bots
from typer.testing import CliRunner

from arena.cli.app import app
from arena.referee import play_game
from arena.seats import confine, sandbox, start_error, startup
from arena.seats.bot import BotSpec
from arena.seats.make import Isolation
from arena.seats.seat import Limits
from arena.seats.startup import start_problems
from arena.variants import find_variant

BOTS = Path(__file__).parents[1] / "bots"
FAULTY = BOTS / "faulty_bots.py"
needs_namespaces = pytest.mark.skipif(not confine.available(),
                                      reason="this system does not allow user namespaces")
runner = CliRunner()


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real ``arena`` command in its own process, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli.app", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=900, check=False)


# --------------------------------------------------------------------------- no bot code here

@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """A copy of the import-marking bot in ``tmp_path/bot``, with its empty ``marks/``."""
    folder = tmp_path / "bot"
    (folder / "marks").mkdir(parents=True)
    writable_by_bots(folder / "marks")
    shutil.copy(BOTS / "import_marker.py", folder / "import_marker.py")
    return folder


def marks(folder: Path) -> list[str]:
    """The program (``sys.argv[0]``) of every process that imported the marker bot."""
    return [p.read_text("utf-8") for p in (folder / "marks").iterdir()]


def outside_the_host(folder: Path) -> list[str]:
    return [m for m in marks(folder) if not m.endswith(str(Path("arena", "seats", "host.py")))]


def marker_config(tmp_path: Path, isolation: str = "process") -> Path:
    path = tmp_path / "marked.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: marked
        variant: indian13
        options: {{players: 2, draw_cap: 20}}
        isolation: {isolation}
        bots:
          - name: marker
            module: bot/import_marker.py:MarkerBot
            write: [bot/marks]
          - name: random
            module: bots.random_bot:RandomBot
        format: {{games: 2}}
        workers: 2
        """), "utf-8")
    return path


@pytest.mark.parametrize(("command", "codes"), [
    (["validate", "marked.yaml"], {0}),
    (["run", "marked.yaml"], {0}),
    (["sprt", "marked.yaml", "--candidate", "marker", "--baseline", "random",
      "--max-games", "2"], {0, 1, 3}),
])
def test_no_bot_code_runs_in_the_arena_process(tmp_path: Path, marker: Path, command: list[str],
                                              codes: set[int]) -> None:
    """DESIGN "Bots": the marker bot is imported only by the host it is started through
    (confined, writing its marks through its ``write:`` grant), never by the arena."""
    marker_config(tmp_path)
    result = arena(*command, cwd=tmp_path)
    assert result.returncode in codes, result.stderr
    assert marks(marker), "the bot was never started"
    assert outside_the_host(marker) == []
    if command[0] == "run":  # the check's host, then a game's: the write: folder (under
        assert len(marks(marker)) >= 2  # /tmp here) keeps its files after each game


def test_play_in_processes_runs_no_bot_code_here(tmp_path: Path, marker: Path) -> None:
    result = arena("play", "indian13", "bot/import_marker.py:MarkerBot", "random",
                   "--isolation", "process", "-o", "draw_cap=20", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "MarkerBot" in result.stdout
    assert outside_the_host(marker) == []  # confined, it has no grant to write a mark


def test_trusted_bots_are_imported_here_the_control(tmp_path: Path, marker: Path) -> None:
    """The control: with ``isolation: inprocess`` the config trusts the bot, and its marks
    come from the arena's own process, so the tests above would see a leak."""
    marker_config(tmp_path, isolation="inprocess")
    result = arena("validate", "marked.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert outside_the_host(marker)


def test_the_source_hash_is_read_from_the_files(tmp_path: Path, marker: Path) -> None:
    spec = BotSpec("marker", f"{marker / 'import_marker.py'}:MarkerBot")
    before = spec.source_hash()
    assert marks(marker) == []
    with (marker / "import_marker.py").open("a", encoding="utf-8") as f:
        f.write("# v2\n")
    assert spec.source_hash() != before
    assert BotSpec("g", "bots.greedy:GreedyBot").source_files()[0].name == "greedy.py"


def test_the_source_hash_is_the_files_text_read_in_pieces(tmp_path: Path) -> None:
    """The hash that notices a changed bot on resume is read in pieces (a command's binary
    may be large), yet stays the hash of the files' whole text that results folders already
    hold: newlines read as text (a CRLF split across two pieces too), bad UTF-8 replaced."""
    source = tmp_path / "bot.py"
    data = b"#" * ((1 << 20) - 1) + b"\r\nclass Bot:\r\n    pass\r\n# \xff\xfe\xc3"
    source.write_bytes(data)
    spec = BotSpec("crlf", f"{source}:Bot")
    text = data.replace(b"\r\n", b"\n").decode(errors="replace")
    whole = hashlib.sha256(f"{source}:Bot\n{text}".encode()).hexdigest()[:16]
    assert spec.source_hash() == whole


HASH_IN_ASCII_LOCALE = """
import sys
from arena.seats.bot import BotSpec
print(BotSpec("mine", sys.argv[1]).source_hash())
"""


def test_the_source_hash_is_the_same_under_any_locale(tmp_path: Path) -> None:
    """A resumed run, or a cluster's worker, may run under another locale; the hash must not
    change with it. It was read in the locale's encoding: under an ASCII one (C, neither
    coerced nor in UTF-8 mode) a bot file with an accented comment hashed differently."""
    source = tmp_path / "bot.py"
    source.write_text("# joué\nclass Bot:\n    pass\n", "utf-8")
    target = f"{source}:Bot"
    ascii_env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                 "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run([sys.executable, "-c", HASH_IN_ASCII_LOCALE, target], env=ascii_env,
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == BotSpec("mine", target).source_hash()


# --------------------------------------------------------------------------- bots that cannot start

BROKEN = {
    "imports.py": "import no_such_package_zz\n",
    "syntax.py": "class Bot:\n    def draw(self, view)\n",
    "nodraw.py": "class Bot:\n    def play(self, view):\n        return 'x'\n",
    "boom.py": "class Bot:\n    def __init__(self):\n        raise RuntimeError('boom at start')\n"
               "    def draw(self, view): return 'stock'\n"
               "    def play(self, view): return 'x'\n",
    "exits.py": "import sys\nsys.exit(3)\n",
    "table.py": "from pathlib import Path\n"  # its table is not in its own folder
                "TABLE = (Path(__file__).parents[1] / 'data' / 'table.json').read_text()\n"
                "from bots.random_bot import RandomBot as Bot\n",
    "warns.py": "import sys, warnings\nwarnings.warn('old api')\nsys.exit('no seed given')\n",
}
CASES = [  # (the bot's config entry, what its one line must say)
    ("module: imports.py:Bot", "ModuleNotFoundError: No module named 'no_such_package_zz'"),
    ("module: syntax.py:Bot", "SyntaxError: expected ':' (syntax.py, line 2)"),
    ("module: nodraw.py:Bot", "class 'Bot' has no draw(view) method"),
    ("module: bots.greedy:Nope", "'bots.greedy' has no class 'Nope'; its bot classes: GreedyBot"),
    ("module: boom.py:Bot", "RuntimeError: boom at start"),
    ("module: exits.py:Bot", "SystemExit: 3"),  # in process it ended validate at once
    ("module: bots.random_bot:RandomBot\n    params: {depth: 2}",
     "TypeError: RandomBot.__init__() got an unexpected keyword argument 'depth' (a bot's "
     "arguments are its config entry's params:, here {'depth': 2})"),
    ("command: [python3, warns.py]", "cannot start: no seed given"),  # not its warning
    ("command: [python3, missing_bot.py]", "can't open file"),
]


def broken_config(tmp_path: Path, entry: str, isolation: str = "process") -> Path:
    for name, source in BROKEN.items():
        (tmp_path / name).write_text(source, "utf-8")
    (tmp_path.parent / "data").mkdir(exist_ok=True)  # beside the bot's folder, not in it
    (tmp_path.parent / "data" / "table.json").write_text("{}", "utf-8")
    path = tmp_path / "broken.yaml"
    path.write_text(textwrap.dedent("""\
        name: broken
        variant: indian13
        options: {players: 2}
        isolation: ISOLATION
        bots:
          - name: random
            module: bots.random_bot:RandomBot
          - name: bad
            ENTRY
        """).replace("ISOLATION", isolation).replace("ENTRY", entry), "utf-8")
    return path


def refused_lines(*args: str) -> list[str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (result.stdout, result.stderr)
    return result.stderr.splitlines()


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
@pytest.mark.parametrize(("entry", "error"), CASES, ids=[c[1][:24] for c in CASES])
def test_validate_names_a_bot_that_cannot_start(tmp_path: Path, entry: str, error: str,
                                                isolation: str) -> None:
    config = broken_config(tmp_path, entry, isolation)
    lines = refused_lines("validate", str(config))
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"arena: error: {config}:8: bots[1]: bot 'bad' cannot start: ")
    assert error in lines[0]


@pytest.mark.parametrize(("entry", "error"), CASES[:2] + CASES[-1:])
def test_run_refuses_a_bot_that_cannot_start_before_writing(tmp_path: Path, entry: str,
                                                            error: str) -> None:
    config = broken_config(tmp_path, entry)
    lines = refused_lines("run", str(config), "--out", str(tmp_path / "results"))
    assert len(lines) == 1 and "bot 'bad' cannot start: " in lines[0] and error in lines[0]
    assert not (tmp_path / "results").exists()


def test_every_bot_that_cannot_start_gets_its_line(tmp_path: Path) -> None:
    config = broken_config(tmp_path, "module: imports.py:Bot\n  - name: worse\n"
                                     "    module: boom.py:Bot")
    lines = refused_lines("validate", str(config))
    assert [line.split(": bot ")[1].split(" ")[0] for line in lines] == ["'bad'", "'worse'"]


@needs_namespaces
def test_a_file_the_bot_was_not_given_stops_it_from_starting(tmp_path: Path) -> None:
    """Confined, a bot reads its own folder (or, where the bot's user may not, its own
    file) and nothing else of yours unless the config names more under read:."""
    config = broken_config(tmp_path, "module: table.py:Bot")
    lines = refused_lines("validate", str(config))
    assert len(lines) == 1 and "FileNotFoundError" in lines[0] and "table.json" in lines[0]
    config.write_text(config.read_text("utf-8") + "    read: [../data]\n", "utf-8")
    assert runner.invoke(app, ["validate", str(config)]).exit_code == 0


@pytest.mark.parametrize("isolation", ["inprocess", pytest.param(
    "process", marks=pytest.mark.skipif(not confine.available(), reason="no namespaces"))])
def test_a_helper_beside_a_bot_in_the_home_folder_is_explained(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolation: str) -> None:
    """A file directly in the home folder gets only itself (README): its helper beside it
    is not found, and the start error now says why instead of a bare ModuleNotFoundError."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "helper.py").write_text("SOURCE = 'stock'\n", "utf-8")
    (tmp_path / "bot.py").write_text("import helper\nfrom bots.random_bot import RandomBot\n"
                                     "\n\nclass Mine(RandomBot):\n    pass\n", "utf-8")
    lines = refused_lines("play", "indian13", str(tmp_path / "bot.py"), "random",
                          "--isolation", isolation)
    assert len(lines) == 1, lines
    assert lines[0].endswith(f"No module named 'helper' ('helper' sits beside it in "
                             f"{tmp_path.resolve()}, a folder no bot is given: put the bot "
                             f"and its modules in a folder of their own)"), lines[0]


def test_a_bot_that_never_says_ready_is_named(tmp_path: Path) -> None:
    (tmp_path / "sleepy.py").write_text("import time\ntime.sleep(600)\n", "utf-8")
    spec = BotSpec("sleepy", f"{tmp_path / 'sleepy.py'}:Bot", origin="bot 0")
    problems = start_problems([spec], variant=find_variant("indian13"),
                              options={"players": 2}, isolation="process",
                              limits=Limits(startup_ms=1500))
    assert problems == ["bot 0: bot 'sleepy' cannot start: it did not say ready in time "
                        "(limits.startup_ms)"]


CHATTY_START = """\
import json, sys
print("starting up"{flush})
for line in sys.stdin:
    if json.loads(line).get("type") == "start_game":
        print(json.dumps({{"type": "ready"}}){flush})
"""


@pytest.mark.parametrize(("flush", "says", "startup_ms"), [
    (", flush=True", "a line that is not a JSON object: 'starting up'; stdout carries the "
                     "protocol's messages alone, write anything else to stderr", 30_000),
    ("", "it did not say ready in time (limits.startup_ms) (a command bot must flush each "
         "line it writes, as print(..., flush=True) does)", 1500),
])
def test_a_command_bot_s_start_error_says_what_it_wrote_or_how_to_flush(
        tmp_path: Path, flush: str, says: str, startup_ms: int) -> None:
    """A print before its ready, or a ready left in its buffer: the error said only that
    it had not said ready, "and wrote nothing to stderr"."""
    python = shutil.which("python3", path="/usr/bin:/bin")  # seen inside the confinement
    if python is None:
        pytest.skip("no system python3")
    (tmp_path / "cmdbot.py").write_text(CHATTY_START.format(flush=flush), "utf-8")
    spec = BotSpec("cmd", command=(python, str(tmp_path / "cmdbot.py")),
                   origin="bot 0")
    problems = start_problems([spec], variant=find_variant("indian13"),
                              options={"players": 2}, isolation="process",
                              limits=Limits(startup_ms=startup_ms))  # room on a busy machine
    assert problems == [f"bot 0: bot 'cmd' cannot start: {says}"]


@pytest.mark.parametrize(("stderr", "line"), [
    ("arena: warning: solver.py changed after it was compiled\nbad seat count\n",
     "bad seat count"),
    ("(node:77) [DEP0005] DeprecationWarning: Buffer() is deprecated\n"
     "(Use `node --trace-deprecation ...` to show where the warning was created)\n"
     "usage: bot.js SEED\n", "usage: bot.js SEED"),
    ("bot.py:3: UserWarning: no GPU\n  warnings.warn('no GPU')\n", "bot.py:3: UserWarning: no GPU"),
])
def test_the_quoted_line_is_the_reason_not_a_warning_before_it(stderr: str, line: str) -> None:
    """A warning printed first is passed over; alone, it is still the best clue."""
    assert start_error.first_error_line(stderr) == line


def test_a_missing_script_is_named_by_the_path_the_config_meant(tmp_path: Path) -> None:
    config = broken_config(tmp_path, "command: [python3, missing_bot.py]")
    lines = refused_lines("validate", str(config))
    assert str(tmp_path / "missing_bot.py") in lines[0]  # the path, as the config meant it


# --------------------------------------------------------------------------- errors in sight

@pytest.mark.parametrize("hook", ["BrokenHook", "BrokenEnd"])
def test_a_hook_s_traceback_starts_at_the_bot_s_frame(tmp_path: Path, hook: str) -> None:
    """An isolated bot raising in end_round or end_game: its log began with the seats'
    own call of the hook (arena/seats/bot.py), not the bot's code."""
    result = runner.invoke(app, ["play", "indian13", f"{FAULTY}:{hook}", "random",
                                 "-o", "match={deals: 2}", "--isolation", "process",
                                 "--logs", str(tmp_path / "logs"), "--seed", "3"])
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "logs" / f"{hook}.stderr.log").read_text("utf-8")
    firsts = [t.splitlines()[0] for t in text.split("Traceback (most recent call last):\n")[1:]]
    assert firsts and all(str(FAULTY) in line for line in firsts), firsts[:1]


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_raising_bot_s_traceback_reaches_its_log(tmp_path: Path, isolation: str) -> None:
    config = tmp_path / "raiser.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: raiser
        variant: indian13
        options: {{players: 2, draw_cap: 10}}
        isolation: {isolation}
        bots:
          - name: raiser
            module: {FAULTY}:Raiser
          - name: stock
            module: {FAULTY}:StockBot
        format: {{games: 2}}
        workers: 1
        seed: 5
        output: {tmp_path / 'results'}
        """), "utf-8")
    result = runner.invoke(app, ["run", str(config)])
    assert result.exit_code == 0, result.stderr
    log = tmp_path / "results" / "raiser" / "logs" / "raiser.stderr.log"
    text = log.read_text("utf-8")
    assert text.count("Traceback (most recent call last):") == 10  # 5 a game, then forfeit
    assert "RuntimeError: draw is broken" in text and "in draw" in text
    firsts = [t.splitlines()[0] for t in text.split("Traceback (most recent call last):\n")[1:]]
    assert all(str(FAULTY) in line for line in firsts), firsts[:1]  # the bot's frame first
    assert not (log.parent / "stock.stderr.log").exists() or \
        "Traceback" not in (log.parent / "stock.stderr.log").read_text("utf-8")
    warning = [line for line in result.stderr.splitlines() if "'raiser' " in line]
    assert warning == [f"arena: warning: bot 'raiser' forfeited 2 of its 2 games and faulted "
                       f"on 100% of its decisions ({text.count('Traceback (most recent')} "
                       f"faults, mostly crash); see {log} and {log.parents[1] / 'arena.log'}"]
    assert "'stock' " not in result.stderr


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_play_verbose_shows_the_traceback_under_its_turn(isolation: str) -> None:
    result = runner.invoke(app, ["play", "indian13", f"{FAULTY}:Raiser", f"{FAULTY}:StockBot",
                                 "-o", "draw_cap=6", "--seed", "2", "-v",
                                 "--isolation", isolation])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "seat" in line and "fault: crash" in line)
    assert lines[at].startswith("  seat ") and "(Raiser) fault: crash, draw decision" in lines[at]
    trace = lines[at + 1:at + 12]
    assert trace[0] == "    | Traceback (most recent call last):"
    assert "    | RuntimeError: draw is broken" in trace
    after = next(line for line in lines[at + 1:] if not line.startswith("    | "))
    assert "(Raiser) draws" in after  # the safe action played for it (COM-10)


def test_folders_named_bots_or_arena_beside_the_config_change_nothing(tmp_path: Path) -> None:
    """The built-in bots (and the sandbox and host themselves) are always the installed
    ones: a folder of the organiser's named ``bots`` or ``arena`` stands in for neither."""
    for package in ("bots", "arena"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(
            "import pathlib\npathlib.Path(__file__).with_name('imported').touch()\n"
            "raise SystemExit('the wrong package')\n", "utf-8")
    (tmp_path / "bots" / "greedy.py").write_text("raise SystemExit('shadowed')\n", "utf-8")
    config = tmp_path / "c.yaml"
    config.write_text(textwrap.dedent("""\
        name: c
        variant: indian13
        options: {players: 2, draw_cap: 20}
        bots:
          - {name: greedy, module: bots.greedy:GreedyBot}
          - {name: random, module: bots.random_bot:RandomBot}
        format: {games: 2}
        workers: 1
        """), "utf-8")
    script = Path(sys.executable).with_name("arena")  # the console script: as a user runs it
    for command in (["validate", "c.yaml"], ["run", "c.yaml"]):
        done = subprocess.run([str(script), *command], cwd=tmp_path, text=True,
                              capture_output=True, timeout=900, check=False)
        assert done.returncode == 0, done.stderr
    assert "faulted" not in done.stderr
    assert not (tmp_path / "bots" / "imported").exists()
    assert not (tmp_path / "arena" / "imported").exists()
    source = BotSpec("g", "bots.greedy:GreedyBot").source_files()[0]
    assert source.parent.parent == Path(__file__).resolve().parents[2] or \
        "site-packages" in str(source)


def test_a_bot_cannot_read_back_its_stderr_of_earlier_games(tmp_path: Path) -> None:
    """Its stderr is a pipe the referee drains into the log, not the log file itself: what
    it wrote in one game cannot be read back in the next (a duplicate deal's cards)."""
    config = reporting_bot_config(tmp_path, "reader", f"{BOTS / 'stderr_reader.py'}"
                                  ":StderrReader", games=6)
    report = tmp_path / "notes.jsonl"
    result = runner.invoke(app, ["run", str(config)])
    assert result.exit_code == 0, result.stderr
    notes = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    assert len(notes) >= 6  # the start check's game, then each game's
    assert all(note["found"] == [] for note in notes), notes
    log = (tmp_path / "results" / "reader" / "logs" / "reader.stderr.log").read_text("utf-8")
    assert all(note["token"] in log for note in notes[1:])  # logged (the check's elsewhere)


@pytest.mark.parametrize(("why", "caps", "line"), [
    (None, {"processes", "memory", "cpu"},
     "bots: confined (namespaces of their own); a cgroup each caps a bot's processes, memory "
     "and CPU together"),
    (None, {"memory"}, "bots: confined (namespaces of their own); a cgroup each caps a bot's "
                       "memory together; the rest holds each process alone"),
    ("unshare: Operation not permitted", set(),
     "bots: unconfined (unshare: Operation not permitted); no cgroup here, so memory_mb caps "
     "each process of a bot alone (docs/security.md, Known gaps)"),
], ids=["all", "memory-only", "neither"])
def test_validate_says_what_guards_a_bot_here(monkeypatch: pytest.MonkeyPatch, why: str | None,
                                              caps: set[str], line: str) -> None:
    """An organiser learns from `arena validate`, before a contest, that a guard is missing
    on this machine (docs/security.md, Known gaps), not from a bot that used the gap."""
    monkeypatch.setattr(startup.confine, "problem", lambda: why)
    monkeypatch.setattr(startup.sandbox, "seat_caps", lambda: frozenset(caps))
    assert startup.guard_line() == line


def test_seat_caps_match_the_files_of_a_seats_groups() -> None:
    """What seat_caps reports is what a seat's groups hold here (none as a user without
    cgroups), and it leaves no group of its own behind."""
    groups = sandbox.new_seat_cgroups(8, 1 << 30)
    try:
        files = {f.name for group in groups for f in group.iterdir()}
    finally:
        sandbox.kill_cgroups(groups)
    caps = sandbox.seat_caps()
    assert ("processes" in caps) == ("pids.max" in files)
    assert ("memory" in caps) == bool(files & {"memory.max", "memory.limit_in_bytes"})
    assert ("cpu" in caps) == bool(files & {"cpu.max", "cpu.cfs_quota_us"})
    mine = f"r{os.getpid()}-*"
    root = sandbox.CGROUP_ROOT
    assert [*root.glob(f"*/rummy-arena/{mine}"), *root.glob(f"rummy-arena/{mine}")] == []


@pytest.mark.parametrize(("cls", "isolation", "why"), [
    ("BrokenStart", "process", "RuntimeError: no luck today"),
    ("BrokenStart", "inprocess", "RuntimeError: no luck today"),
    ("SlowStart", "process", "it did not say ready in time (limits.startup_ms)"),
    ("SlowStart", "inprocess", "stopped: still starting after 1500 ms (limits.startup_ms)"),
])
def test_a_seat_that_does_not_start_in_a_game_is_logged_with_its_reason(
        cls: str, isolation: Isolation, why: str, caplog: pytest.LogCaptureFixture,
        tmp_path: Path) -> None:
    """During a tournament arena.log said only "bot did not start", where `arena validate`
    quotes the bot's error or names the limit; an organiser went looking in an empty log."""
    specs = [BotSpec("late", bot_target(cls)), BotSpec("random", "bots.random_bot:RandomBot")]
    with caplog.at_level(logging.INFO, logger="arena.referee"):
        play_game(find_variant("indian13"), specs, seed=2, isolation=isolation,
                  options={"players": 2, "draw_cap": 4}, limits=Limits(startup_ms=1500),
                  stderr_dir=tmp_path)
    lines = [r.getMessage() for r in caplog.records if "seat 0 (late) crash" in r.getMessage()]
    assert lines[0] == f"game seat 0 (late) crash: bot did not start: {why}", lines
