"""What a bot writes can only fault its own seat: no stall, no crash of the referee (COM-6).

Each hostile bot here is a small shell program speaking the protocol badly; the game is
played in a child process under a wall-clock limit, so a referee that hangs fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

READY = """read start; echo '{"type":"ready"}'"""
HOSTILE = {
    # a reply nested deeper than any parser's recursion (RecursionError in json)
    "deep": READY + """
        deep=$(printf '%.0s[' $(seq 1 100000))
        while read request; do echo "$deep"; done""",
    # a JSON object whose action, id or error is an array nested past what orjson writes
    # back (255 levels) or Python's repr reaches: quoting it in the log crashed the referee
    "deep_action": READY + """
        open=$(printf '%.0s[' $(seq 1 300)); close=$(printf '%.0s]' $(seq 1 300))
        i=0
        while read request; do i=$((i+1)); echo "{\\"id\\":$i,\\"action\\":$open$close}"; done""",
    "deep_id": READY + """
        open=$(printf '%.0s[' $(seq 1 1000)); close=$(printf '%.0s]' $(seq 1 1000))
        while read request; do echo "{\\"id\\":$open$close,\\"action\\":\\"stock\\"}"; done""",
    "deep_error": READY + """
        open=$(printf '%.0s[' $(seq 1 1000)); close=$(printf '%.0s]' $(seq 1 1000))
        i=0
        while read request; do i=$((i+1)); echo "{\\"id\\":$i,\\"error\\":$open$close}"; done""",
    # an error text as Node.js writes a stack: the error first, then frames
    "js_stack": READY + """
        i=0
        while read request; do
          i=$((i+1))
          frames='\\n    at play (/b/jsb.js:9:9)\\n    at readableAddChunk '
          frames="$frames"'(node:internal/streams/readable:512:3)'
          printf '%s\\n' "{\\"id\\":$i,\\"error\\":\\"Error: jsb broke$frames\\"}"
        done""",
    # an error text past 8,000 characters whose second line forges the referee's words
    "forged_long_error": READY + """
        pad=$(head -c 8000 /dev/zero | tr '\\0' '.')
        i=0
        while read request; do
          i=$((i+1))
          forged='\\ndraw decision (2 ms): the referee'"'"'s pipe broke; not counted '
          forged="$forged"'against the bot'
          printf '%s\\n' "{\\"id\\":$i,\\"error\\":\\"oops$forged\\\\n$pad\\"}"
        done""",
    # stale replies without end, from the start: never a ready among them
    "stale_flood": """exec yes '{"id":0}'""",
    # answers the first request, then floods stale replies while it keeps answering
    "flood_after_answer": READY + """
        read request; echo '{"id":1,"action":"stock"}'
        yes '{"id":0}' &
        while read request; do :; done""",
    # 200 kB of action text on one line, every decision
    "huge_action": READY + """
        big=$(head -c 200000 /dev/zero | tr '\\0' 'x')
        i=0
        while read request; do
          i=$((i+1)); echo "{\\"id\\":$i,\\"action\\":\\"$big\\"}"
        done""",
    # one reply past line_bytes (1 MiB), then replies of the right length
    "one_overlong_line": READY + """
        read request; head -c 2000000 /dev/zero | tr '\\0' 'x'; echo
        i=1
        while read request; do i=$((i+1)); echo "{\\"id\\":$i,\\"action\\":\\"stock\\"}"; done""",
    # every reply one id behind: the id of a request answered already, never one given up on
    "id_off_by_one": READY + """
        i=0
        while read request; do echo "{\\"id\\":$i,\\"action\\":\\"stock\\"}"; i=$((i+1)); done""",
    # its second reply sent twice (a bot's output flushed twice), then on time
    "reply_twice": READY + """
        i=0
        while read request; do
          i=$((i+1))
          echo "{\\"id\\":$i,\\"action\\":\\"stock\\"}"
          if [ $i -eq 2 ]; then echo "{\\"id\\":$i,\\"action\\":\\"stock\\"}"; fi
        done""",
    # exits with status 3 at its third request (and at every third after each restart)
    "exits": READY + """
        i=0
        while read request; do
          i=$((i+1)); if [ $i -eq 3 ]; then exit 3; fi
          echo "{\\"id\\":$i,\\"action\\":\\"stock\\"}"
        done""",
    # a boolean id, which Python would take for 1
    "id_true": READY + """
        while read request; do echo '{"id":true,"action":"stock"}'; done""",
    # one stray line on stdout (a debugging print) before its second reply, then on time
    "stray_line": READY + """
        i=0
        while read request; do
          i=$((i+1))
          if [ $i -eq 2 ]; then echo 'DEBUG hand=5H 6H'; fi
          echo "{\\"id\\":$i,\\"action\\":\\"stock\\"}"
        done""",
    # one stray JSON object (a debugging print of its state) before its second reply
    "stray_object": READY + """
        i=0
        while read request; do
          i=$((i+1))
          if [ $i -eq 2 ]; then echo '{"debug":"hand 5H 6H"}'; fi
          echo "{\\"id\\":$i,\\"action\\":\\"stock\\"}"
        done""",
    # an error text of terminal escapes (a window title, erase the line), a carriage return
    # and a forged log line after it, a line separator and a right-to-left override
    "escapes": READY + """
        i=0
        while read request; do
          i=$((i+1))
          printf '%s\\n' "{\\"id\\":$i,\\"error\\":\\"\\u001b]0;pwned\\u0007\\u001b[2K\\r\\
2026-01-01 forged INFO all good\\u2028\\u202eevil\\"}"
        done""",
}

PLAY = """
import json, logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stderr)
from pathlib import Path
from arena.seats.bot import BotSpec
from arena.referee import Clock, play_game
from arena.seats.seat import Limits
from arena.variants import find_variant
script, logs = sys.argv[1], Path(sys.argv[2])
specs = [BotSpec("hostile", command=("/bin/sh", script)),
         BotSpec("random", "bots.random_bot:RandomBot")]
record = play_game(find_variant("indian13"), specs, seed=3, isolation="process",
                   options={"players": 2, "draw_cap": 12}, stderr_dir=logs,
                   clock=Clock(draw_ms=1000, play_ms=1000),
                   limits=Limits(startup_ms=30_000, grace_ms=500))
print(record.to_json())
"""


def play_hostile(tmp_path: Path, name: str) -> tuple[dict[str, object], str]:
    script = tmp_path / f"{name}.sh"
    script.write_text(textwrap.dedent(HOSTILE[name]).strip() + "\n", "utf-8")
    done = subprocess.run([sys.executable, "-c", PLAY, str(script), str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_output_faults_only_its_seat(tmp_path: Path, name: str) -> None:
    record, _ = play_hostile(tmp_path, name)
    hostile, honest = record["seats"]  # type: ignore[misc]
    assert sum(hostile["faults"].values()) > 0, hostile
    assert sum(honest["faults"].values()) == 0, honest
    assert record["rounds"]  # the game was played to its end


def test_what_a_bot_says_is_logged_short(tmp_path: Path) -> None:
    """An unreadable 200 kB action is quoted in the log by its first 200 characters."""
    _, log = play_hostile(tmp_path, "huge_action")
    faults = [line for line in log.splitlines() if "hostile) unreadable" in line]
    assert faults and all(len(line) < 600 for line in faults)
    assert "x" * 150 in faults[0]


def test_what_a_bot_says_is_logged_escaped(tmp_path: Path) -> None:
    """A bot's error text went into arena.log as it came: catting the log ran its terminal
    escapes, and its CR and line separators forged log lines."""
    _, log = play_hostile(tmp_path, "escapes")
    faults = [line for line in log.split("\n") if "hostile) crash" in line]
    assert faults
    assert not {"\x1b", "\x07", "\r", "\u2028", "\u202e"} & set(log)
    assert "\\x1b]0;pwned\\x07\\x1b[2K\\r2026-01-01 forged INFO all good\\u2028\\u202eevil" \
        in faults[0]


def test_one_stray_line_is_one_fault_and_is_logged(tmp_path: Path) -> None:
    """A debugging print to stdout took the place of a reply; the reply came next and was
    read as the next request's, one behind, and so every reply after it: the bot forfeited
    at its fifth, and the log never said what the stray line was."""
    record, log = play_hostile(tmp_path, "stray_line")
    hostile = record["seats"][0]  # type: ignore[index]
    assert hostile["faults"]["unreadable"] == 1 and hostile["faults"]["timeout"] == 0, hostile
    assert not hostile.get("forfeit"), hostile
    assert "hostile) unreadable: play decision" in log or \
        "hostile) unreadable: draw decision" in log
    assert "a line that is not a JSON object: 'DEBUG hand=5H 6H'; stdout carries the " \
        "protocol's messages alone, write anything else to stderr" in log  # what to do


def test_one_stray_json_object_is_one_fault(tmp_path: Path) -> None:
    """docs/protocol.md: one stray line costs one fault. A stray line that was a JSON object
    (no id) took the reply's place, and every reply after it was read one request behind:
    five faults in a row, and the seat forfeited every game."""
    record, log = play_hostile(tmp_path, "stray_object")
    hostile = record["seats"][0]  # type: ignore[index]
    assert hostile["faults"]["unreadable"] == 1 and hostile["faults"]["timeout"] == 0, hostile
    assert not hostile.get("forfeit"), hostile
    assert "its reply carries id None; expected 2" in log or \
        "its reply carries id null; expected 2" in log, log[-2000:]


def test_a_reply_sent_twice_is_one_fault(tmp_path: Path) -> None:
    """docs/protocol.md: one stray line costs one fault. A second copy of an answered reply
    was read as the next request's answer, and every reply after it was one behind: five
    faults in a row, and the seat forfeited."""
    record, log = play_hostile(tmp_path, "reply_twice")
    hostile = record["seats"][0]  # type: ignore[index]
    assert hostile["faults"]["unreadable"] == 1 and hostile["faults"]["timeout"] == 0, hostile
    assert not hostile.get("forfeit"), hostile
    assert "its reply carries id 2, a request answered already (a reply sent twice?); " \
        "expected 3" in log


def test_a_bot_that_exits_mid_decision_is_said_to_have_died_with_its_status(
        tmp_path: Path) -> None:
    """docs/protocol.md: a bot that died is said to have died, with its exit status; the
    log said only "crash: play decision (4 ms)", and its author had nothing to go on."""
    _, log = play_hostile(tmp_path, "exits")
    crashes = [line for line in log.splitlines() if "hostile) crash" in line]
    assert crashes and all(line.endswith("the bot died (exit status 3)") for line in crashes)


def test_a_reply_nested_past_the_depth_limit_is_logged_as_such(tmp_path: Path) -> None:
    """Valid-looking JSON nested 100,000 deep was logged as "not a JSON object", which sent
    its author looking for a stray print."""
    _, log = play_hostile(tmp_path, "deep")
    faults = [line for line in log.splitlines() if "hostile) unreadable" in line]
    assert faults and "JSON nested deeper than the referee reads (1024 levels)" in faults[0]
    assert "not a JSON object" not in log


def test_one_overlong_reply_is_one_fault_not_the_rest_of_the_game(tmp_path: Path) -> None:
    """The rest of a line refused as too long is dropped; the bot's next replies are read
    (it used to get every later reply counted unreadable until it was restarted)."""
    record, _ = play_hostile(tmp_path, "one_overlong_line")
    hostile = record["seats"][0]  # type: ignore[index]
    assert hostile["faults"]["unreadable"] == 1, hostile


@pytest.mark.parametrize("name", ["id_off_by_one", "id_true"])
def test_a_reply_with_the_wrong_id_is_refused_at_once_not_waited_past(tmp_path: Path,
                                                                     name: str) -> None:
    """COM-6: only a request given up on may be answered late. A reply with any other id
    is unreadable at once, and the log says which id was expected; it used to be dropped
    as late, so that every decision of such a bot waited out its whole clock."""
    record, log = play_hostile(tmp_path, name)
    hostile = record["seats"][0]  # type: ignore[index]
    assert hostile["faults"].get("unreadable", 0) > 0, hostile
    assert hostile["faults"]["timeout"] == 0, hostile
    sent = "0" if name == "id_off_by_one" else "true"
    assert f"its reply carries id {sent}; expected 1, the id of the request it answers" in log


def play_verbose(tmp_path: Path, file: str, name: str) -> subprocess.CompletedProcess[str]:
    """``arena play -v`` of random against the hostile bot ``name``, saved as ``file``."""
    script = tmp_path / file
    script.write_text(textwrap.dedent(HOSTILE[name]).strip() + "\n", "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", "indian13", "random", "--command",
         f"/bin/sh '{script}'", "--seed", "3", "-o", "draw_cap=12", "-v"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_arena_play_shows_what_a_bot_says_and_its_file_name_escaped(tmp_path: Path) -> None:
    """``arena play -v`` printed a bot's error text as it came, and named a command bot after
    its file as it was named: a participant's file name or error could set the window's
    title, clear the screen or plant a link."""
    done = play_verbose(tmp_path, "x\x1b]0;FNAME\x07red.sh", "escapes")
    assert not {"\x1b", "\x07", "\r", "\u2028", "\u202e"} & set(done.stdout + done.stderr)
    assert "(x\\x1b]0;FNAME\\x07red) fault: crash, draw decision" in done.stdout
    assert "| \\x1b]0;pwned\\x07\\x1b[2K\\r2026-01-01 forged INFO all good\\u2028" \
        "\\u202eevil" in done.stdout


CHATTY_CRASHER = READY + """
    read request; head -c 8000 /dev/zero | tr '\\0' 'E' >&2; exit 1"""


def test_a_bot_that_crashes_and_restarts_keeps_its_log_within_stderr_bytes(
        tmp_path: Path) -> None:
    """stderr_bytes capped each process's share of the log: a bot writing a screenful and
    crashing at every decision grew its log by the cap at each restart (50 MiB in 2 games
    at the default cap)."""
    script = tmp_path / "chatty.sh"
    script.write_text(textwrap.dedent(CHATTY_CRASHER).strip() + "\n", "utf-8")
    play = PLAY.replace("Limits(startup_ms=30_000, grace_ms=500)",
                        "Limits(startup_ms=30_000, grace_ms=500, stderr_bytes=20_000)")
    done = subprocess.run([sys.executable, "-c", play, str(script), str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    hostile = json.loads(done.stdout)["seats"][0]
    assert hostile["faults"]["crash"] >= 4, hostile  # 8,000 bytes from each of them
    log = (tmp_path / "logs" / "hostile.stderr.log").read_bytes()
    assert log.startswith(b"E" * 8000)
    assert 20_000 <= len(log) < 20_400, len(log)
    assert log.endswith(b"[arena: this log reached limits.stderr_bytes (20000 bytes); what "
                        b"the bot wrote after that is dropped]\n")


def test_the_log_quotes_the_error_line_of_a_javascript_stack(tmp_path: Path) -> None:
    """A stack's last line is a frame of Node's: arena.log quoted it, not the error."""
    _, log = play_hostile(tmp_path, "js_stack")
    faults = [line for line in log.splitlines() if "hostile) crash" in line]
    assert faults and all(line.endswith(": Error: jsb broke") for line in faults), faults[:2]


def test_arena_play_keeps_its_own_words_before_a_long_error_of_the_bot(tmp_path: Path) -> None:
    """A bot's error past 8,000 characters pushed the referee's own words off the fault's
    line in `arena play -v`, which then began with whatever the bot wrote there."""
    done = play_verbose(tmp_path, "forger.sh", "forged_long_error")
    faults = [line for line in done.stdout.splitlines() if "(forger) fault:" in line]
    assert faults, done.stdout[-3000:]
    assert all(re.search(r"\(forger\) fault: crash, (draw|play) decision \(\d+ ms\)$", line)
               for line in faults), faults[:2]
    assert "    | ........" in done.stdout  # the bot's words, their end kept


SURROGATES = """\
from arena.actions import Draw, Play


class Bot:
    \"\"\"Raises at its 3rd draw, answers a text with a lone surrogate at its 5th.\"\"\"

    n = 0

    def draw(self, view):
        self.n += 1
        if self.n == 3:
            raise RuntimeError("my own error \\ud800")
        return "stock\\udc80" if self.n == 5 else Draw("stock")

    def play(self, view):
        return Play(discard=view.drawn if view.drawn_from == "stock" else view.discardable[-1])
"""


def test_a_lone_surrogate_in_what_a_python_bot_says_is_escaped_not_a_crash_of_its_host(
        tmp_path: Path) -> None:
    """Isolated, the host's encoder refused a lone surrogate: the bot's error was lost (a
    traceback of the arena's in its log instead), its game child died and it restarted
    without its memory, and an answer holding one counted as a crash, not unreadable."""
    (tmp_path / "surr.py").write_text(SURROGATES, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", "indian13", "random", "surr.py:Bot",
         "--isolation", "process", "--logs", "logs", "--seed", "3", "-o", "draw_cap=14", "-v"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    faults = [line.strip() for line in done.stdout.splitlines() if "(Bot) fault:" in line]
    assert [line.split(",")[0] for line in faults] == ["seat 1 (Bot) fault: crash",
                                                       "seat 1 (Bot) fault: unreadable"], faults
    assert "RuntimeError: my own error \\ud800" in done.stdout
    assert "stock\\\\udc80" in faults[1] or "stock\\udc80" in faults[1], faults[1]
    log = (tmp_path / "logs" / "Bot.stderr.log").read_text("utf-8", "replace")
    assert "encode_line" not in log and "surrogates not allowed" not in log, log[-2000:]
