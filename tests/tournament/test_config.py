"""Config validation: every kind of error is one line naming the file, line and field (exit 2),
and nothing is written; a good config loads with its defaults and overrides."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.errors import BadInput
from arena.tournament.config import Config, Format, load_config

# Line numbers matter below: each case edits one line of this file.
BASE = """\
name: t
variant: indian13
options:
  players: 2
bots:
  - name: greedy
    module: bots.greedy:GreedyBot
  - name: random
    module: bots.random_bot:RandomBot
format:
  games: 2
seed: 1
workers: 1
"""

runner = CliRunner()


def edit(old: str, new: str, text: str = BASE) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def write(folder: Path, text: str, name: str = "cfg.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(folder: Path, text: str) -> str:
    path = write(folder, text)
    with pytest.raises(BadInput) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert message.startswith(str(path)), message
    return message


# (case id, the edited config, what the message must contain after the file name)
CASES = [
    ("unknown-top-key", edit("workers: 1", "wrokers: 1"), ":13: wrokers: unknown key"),
    ("unknown-bot-key", edit("    module: bots.random_bot:RandomBot\n",
                             "    module: bots.random_bot:RandomBot\n    colour: red\n"),
     ":10: bots[1].colour: unknown key"),
    ("unknown-format-key", edit("  games: 2", "  games: 2\n  rounds: 3"),
     ":12: format.rounds: unknown key"),
    ("workers-text", edit("workers: 1", "workers: two"), ":13: workers: expected"),
    ("workers-zero", edit("workers: 1", "workers: 0"),
     ":13: workers: expected a number of worker processes from 1 to 256, got 0"),
    ("workers-bool", edit("workers: 1", "workers: true"), ":13: workers: expected"),
    ("seed-text", edit("seed: 1", 'seed: "x"'), ":12: seed: expected an integer"),
    ("seed-float", edit("seed: 1", "seed: 1.5"), ":12: seed: expected an integer"),
    ("name-not-text", edit("name: t", "name: [a, b]"), ":1: name: expected"),
    ("name-slash", edit("name: t", "name: a/b"), ":1: name: expected"),
    ("name-bytes", edit("name: t", "name: " + "\u4e2d" * 70),  # 210 bytes: no folder name
     ":1: name: expected at most 200 bytes in UTF-8, got 210"),
    ("format-not-mapping", edit("format:\n  games: 2", "format: 3"), ":10: format: expected"),
    ("format-games-zero", edit("  games: 2", "  games: 0"),
     ":11: format.games: expected a number of games per table from 1 to 10000"),
    ("format-games-text", edit("  games: 2", "  games: many"), ":11: format.games: expected"),
    ("format-games-multiple", edit("  games: 2", "  games: 3"),
     ":11: format.games: expected a multiple of the table size 2"),
    ("format-type", edit("  games: 2", "  games: 2\n  type: swiss"),
     ":12: format.type: expected one of round-robin, gauntlet"),
    ("format-duplicate", edit("  games: 2", "  games: 2\n  duplicate: sometimes"),
     ":12: format.duplicate: expected true or false"),
    ("gauntlet-bad-candidate", edit("  games: 2", "  games: 2\n  type: gauntlet\n"
                                    "  candidate: nobody"),
     ":13: format.candidate: expected one of the bots"),
    ("gauntlet-no-candidate", edit("  games: 2", "  games: 2\n  type: gauntlet"),
     ":10: format.candidate: a gauntlet needs it, the bot that meets all the others: "
     "expected one of the bots: greedy, random"),
    ("round-robin-candidate", edit("  games: 2", "  games: 2\n  candidate: greedy"),
     ":12: format.candidate: expected no candidate in a round-robin (every bot meets every "
     "other): type: gauntlet plays one candidate against the field"),
    ("unknown-variant", edit("variant: indian13", "variant: poker"),
     ":2: variant: unknown variant 'poker'"),
    ("unknown-option", edit("  players: 2", "  players: 2\n  colour: red"),
     ":5: options.colour: indian13: unknown option 'colour'"),
    ("bad-option-value", edit("  players: 2", "  players: 9"),
     ":4: options.players: indian13: option 'players' = 9"),
    ("bad-option-match", edit("  players: 2", "  players: 2\n  match: {deals: 0}"),
     ":5: options.match:"),
    ("options-not-mapping", edit("options:\n  players: 2", "options: 2"),
     ":3: options: expected a mapping"),
    ("module-not-found", edit("bots.random_bot:RandomBot", "bots.nothere:X"),
     ":9: bots[1].module: no module 'bots.nothere' found"),
    ("module-without-class", edit("bots.random_bot:RandomBot", "bots.random_bot"),
     ":9: bots[1].module: expected a built-in bot (random, greedy, search), "
     "'package.module:Class', "
     "'path/file.py:Class' or 'path/file.py', got 'bots.random_bot'"),
    ("module-not-text", edit("bots.random_bot:RandomBot", "[1, 2]"), ":9: bots[1].module:"),
    ("file-bot-missing", edit("bots.random_bot:RandomBot", "missing_bot.py:Bot"),
     ":9: bots[1].module: no file"),
    ("params-not-mapping", edit("    module: bots.random_bot:RandomBot\n",
                                "    module: bots.random_bot:RandomBot\n    params: 3\n"),
     ":10: bots[1].params: expected a mapping"),
    ("network-not-bool", edit("    module: bots.random_bot:RandomBot\n",
                              "    module: bots.random_bot:RandomBot\n    network: yes-please\n"),
     ":10: bots[1].network: expected true or false"),
    ("read-path-missing", edit("    module: bots.random_bot:RandomBot\n",
                               "    module: bots.random_bot:RandomBot\n    read: [nowhere.txt]\n"),
     ":10: bots[1].read[0]: no such file or folder 'nowhere.txt'"),
    ("write-not-list", edit("    module: bots.random_bot:RandomBot\n",
                            "    module: bots.random_bot:RandomBot\n    write: notes.txt\n"),
     ":10: bots[1].write: expected a list of paths"),
    ("bot-without-name", edit("  - name: random\n", "  - nom: random\n"),
     ":8: bots[1].nom: unknown key"),
    ("duplicate-bot-name", edit("name: random", "name: greedy"),
     ":8: bots[1].name: duplicate bot name 'greedy' (bots[0] has it, line 6)"),
    ("bot-not-mapping", edit("  - name: random\n    module: bots.random_bot:RandomBot\n",
                             "  - random\n"), ":8: bots[1]: expected a mapping"),
    ("bots-empty", edit("  - name: greedy\n    module: bots.greedy:GreedyBot\n"
                        "  - name: random\n    module: bots.random_bot:RandomBot\n", "  []\n"),
     ":5: bots: expected a list"),
    ("too-few-bots", edit("  players: 2", "  players: 3"),
     ":5: bots: expected at least 3 bots for 3-seat tables, got 2"),
    ("command-not-found", edit("    module: bots.random_bot:RandomBot", "    command: ./mybot"),
     ":9: bots[1].command: program './mybot' not found"),
    ("command-not-text", edit("    module: bots.random_bot:RandomBot", "    command: {a: 1}"),
     ":9: bots[1].command: expected a command line"),
    ("command-bare-yes", edit("    module: bots.random_bot:RandomBot",
                              "    command: [yes, '{\"id\":0}']"),
     ":9: bots[1].command: expected a command line, e.g. [node, bots/my_bot.js]; YAML reads a "
     "bare yes, no, on or off as true or false: quote it ('yes')"),
    ("module-and-command", edit("    module: bots.random_bot:RandomBot",
                                "    module: bots.random_bot:RandomBot\n    command: python"),
     ":8: bots[1]: expected exactly one of module"),
    ("neither-module-nor-command", edit("    module: bots.random_bot:RandomBot\n", ""),
     ":8: bots[1]: expected exactly one of module"),
    ("isolation", edit("seed: 1", "seed: 1\nisolation: docker"),
     ":13: isolation: expected one of process, inprocess"),
    ("limits-value", edit("seed: 1", "seed: 1\nlimits:\n  memory_mb: -5"),
     ":14: limits.memory_mb: expected a whole number of megabytes from 64 to 65536"),
    ("limits-key", edit("seed: 1", "seed: 1\nlimits:\n  disk_mb: 5"),
     ":14: limits.disk_mb: unknown key"),
    ("faults-forfeit", edit("seed: 1", "seed: 1\nfaults:\n  forfeit_after: 0"),
     ":14: faults.forfeit_after: expected a number of faults from 1 to 100000, got 0"),
    ("time-zero", edit("seed: 1", "seed: 1\ntime:\n  draw_ms: 0"),
     ":14: time.draw_ms: expected a whole number of milliseconds from 1 to 3600000"),
    ("time-unknown", edit("seed: 1", "seed: 1\ntime:\n  think_ms: 10"),
     ":14: time.think_ms: unknown key"),
    ("faults-policy", edit("seed: 1", "seed: 1\nfaults:\n  policy: forfeit"),
     ":14: faults.policy: expected one of safe_action"),
    ("output-not-text", edit("seed: 1", "seed: 1\noutput: [a]"), ":13: output: expected"),
    ("missing-variant", edit("variant: indian13\n", ""), ":1: variant: missing"),
    ("missing-bots", BASE.split("bots:")[0] + "seed: 1\n", ":1: bots: missing"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_load_config_names_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    message = load_error(tmp_path, text)
    assert f"{tmp_path / 'cfg.yaml'}{expected}" in message


def test_not_a_mapping(tmp_path: Path) -> None:
    message = load_error(tmp_path, "- a\n- b\n")
    assert message.startswith(f"{tmp_path / 'cfg.yaml'}:1: config: expected a mapping")


def test_empty_file(tmp_path: Path) -> None:
    message = load_error(tmp_path, "")
    assert "cfg.yaml: config: expected a mapping" in message


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    message = load_error(tmp_path, "name: t\nvariant: indian13\nbots: [a, b\nseed: 1\n")
    assert message.startswith(f"{tmp_path / 'cfg.yaml'}:")
    line = int(message.split(":")[1])
    assert 3 <= line <= 5, message


def test_invalid_yaml_tab_indent(tmp_path: Path) -> None:
    message = load_error(tmp_path, "name: t\nbots:\n\t- name: x\n")
    assert message.startswith(f"{tmp_path / 'cfg.yaml'}:3:"), message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="cannot read the config"):
        load_config(tmp_path / "nope.yaml")


@pytest.mark.parametrize("name", ["..", ".", "../../etc", "a/b", "contest-sprt"])
def test_name_cannot_leave_the_output_folder(tmp_path: Path, name: str) -> None:
    # results go to <output>/<name>/: a name of dots would write (and --fresh delete) files
    # in the output folder's parent or in the output folder itself.
    message = load_error(tmp_path, edit("name: t", f'name: "{name}"'))
    assert ":1: name:" in message and message.endswith(f"got {name!r}")


# ---------------------------------------------------------------- good configs


def test_workers_default_to_the_cpus_this_process_may_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under taskset, or in a container or batch job given 2 of a machine's 64 CPUs, the
    pool has 2 workers, not 64 (os.cpu_count() counts the machine's)."""
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 5})
    config = load_config(write(tmp_path, BASE.replace("workers: 1\n", "")))
    assert config.workers == 2


def test_good_config_loads_with_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, BASE.replace("workers: 1\n", "")
                                    .replace("seed: 1\n", "")))
    assert isinstance(config, Config)
    assert config.name == "t"
    assert config.variant == "indian13"
    assert config.players == 2
    assert config.options["players"] == 2
    assert set(config.options) >= {"players", "match", "draw_cap"}  # defaults filled in
    assert [b.name for b in config.bots] == ["greedy", "random"]
    assert config.format == Format(type="round-robin", candidate=None, games=2,
                                   duplicate=True)
    assert config.games_per_table == 2
    assert config.workers == len(os.sched_getaffinity(0))
    assert config.seed is None  # drawn at random when the tournament starts
    assert config.output == Path("results")
    assert config.results_dir == Path("results") / "t"


def test_games_default_to_the_table_size(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, BASE.replace("format:\n  games: 2\n", "")))
    assert config.format.games is None
    assert config.games_per_table == 2


def test_variant_alias_and_gauntlet(tmp_path: Path) -> None:
    text = edit("variant: indian13", "variant: IND")
    text = edit("  games: 2", "  games: 4\n  type: gauntlet\n  candidate: random\n"
                "  duplicate: false", text)
    config = load_config(write(tmp_path, text))
    assert config.variant == "indian13"
    assert config.format == Format(type="gauntlet", candidate="random", games=4,
                                   duplicate=False)


def test_file_bot_relative_to_the_config(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    (folder / "students").mkdir(parents=True)
    (folder / "students" / "alice.py").write_text(
        "class Bot:\n    def __init__(self, depth=1):\n        self.depth = depth\n"
        "    def draw(self, view): return 'stock'\n"
        "    def play(self, view): return 'discard ' + str(view.drawn)\n", "utf-8")
    text = edit("bots.random_bot:RandomBot", "students/alice.py:Bot\n    params: {depth: 3}")
    config = load_config(write(folder, text))
    alice = config.bots[1]
    assert Path(alice.target.rpartition(":")[0]) == folder / "students" / "alice.py"
    assert alice.params == {"depth": 3}
    assert alice.make().depth == 3  # type: ignore[attr-defined]


def test_overrides_replace_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    config = load_config(path, overrides={"workers": 3, "seed": 0, "games": 6,
                                          "output": tmp_path / "out"})
    assert (config.workers, config.seed, config.games_per_table) == (3, 0, 6)
    assert config.results_dir == tmp_path / "out" / "t"
    plain = load_config(path, overrides={"workers": None, "seed": None, "games": None,
                                         "output": None})
    assert (plain.workers, plain.seed, plain.games_per_table) == (1, 1, 2)


def test_games_override_must_keep_seats_balanced(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="multiple of the table size"):
        load_config(write(tmp_path, BASE), overrides={"games": 3})


def test_identity_ignores_workers_and_output(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    a = load_config(path, overrides={"workers": 1, "output": tmp_path / "a"})
    b = load_config(path, overrides={"workers": 2, "output": tmp_path / "b"})
    c = load_config(path, overrides={"seed": 2})
    assert a.identity_hash() == b.identity_hash() != c.identity_hash()


@pytest.mark.parametrize("name", ["quickstart.yaml", "indian13.yaml", "classroom.yaml"])
def test_shipped_configs_validate(name: str) -> None:
    path = Path(__file__).parents[2] / "configs" / name
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert ": ok: indian13 with" in result.output


# ---------------------------------------------------------------- through the CLI

CLI_CASES = [c for c in CASES if c[0] in {
    "unknown-top-key", "unknown-bot-key", "workers-text", "seed-text", "format-games-zero",
    "unknown-variant", "unknown-option", "bad-option-value", "module-not-importable",
    "class-missing", "too-few-bots", "gauntlet-bad-candidate", "format-games-multiple",
    "command-not-found", "module-and-command"}]
CLI_CASES += [("not-a-mapping", "- a\n- b\n", ":1: config: expected a mapping"),
              ("invalid-yaml", "name: t\nbots: [a, b\n", ":")]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*"))


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CLI_CASES],
                         ids=[c[0] for c in CLI_CASES])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli_refuses_bad_config_with_exit_2_and_writes_nothing(
        tmp_path: Path, text: str, expected: str, command: str) -> None:
    path = write(tmp_path, text)
    out = tmp_path / "out"
    out.mkdir()
    args = [command, str(path)] + (["--out", str(out)] if command == "run" else [])
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"arena: error: {path}{expected}"), lines[0]
    assert _files(out) == []
    assert not (tmp_path / "results").exists()


def test_cli_validate_ok(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    ok, guard = result.output.strip().splitlines()
    assert ok == f"{path}: ok: indian13 with 2 bots, 2 games at 2-seat tables, 1 worker"
    assert guard.startswith("bots: confined") or guard.startswith("bots: unconfined"), guard
    assert not (tmp_path / "results").exists()


def test_cli_validate_of_trusted_bots_says_nothing_of_guards(tmp_path: Path) -> None:
    """In-process bots are trusted: no confinement or cgroup to report."""
    path = write(tmp_path, BASE + "isolation: inprocess\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_cli_run_bad_format_option_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(write(tmp_path, BASE)), "--out", str(out),
                                 "--format", "yaml"])
    assert result.exit_code == 2
    assert "arena: error: --format 'yaml'" in result.output
    assert not out.exists()


def test_cli_run_games_override_not_a_multiple(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(write(tmp_path, BASE)), "--out", str(out),
                                 "--games", "3"])
    assert result.exit_code == 2
    assert "--games 3: expected a multiple" in result.output
    assert not out.exists()


def test_command_bot_paths_are_relative_to_the_config(tmp_path: Path) -> None:
    (tmp_path / "t_cmd_bot.py").write_text("print('hello')\n", "utf-8")
    text = edit("    module: bots.random_bot:RandomBot",
                f"    command: [{Path(sys.executable).name}, t_cmd_bot.py, --fast]")
    config = load_config(write(tmp_path, text))
    bot = config.bots[1]
    assert bot.command is not None
    assert bot.command[1:] == (str(tmp_path / "t_cmd_bot.py"), "--fast")
    assert bot.target == ""


def test_faults_in_a_row_forfeit_after_5_unless_set(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, BASE)).faults.forfeit_after_consecutive == 5
    never = edit("seed: 1", "seed: 1\nfaults: {forfeit_after_consecutive: null}")
    assert load_config(write(tmp_path, never)).faults.forfeit_after_consecutive is None
    message = load_error(tmp_path, edit("seed: 1", "seed: 1\nfaults:\n"
                                        "  forfeit_after_consecutive: 0"))
    assert ":14: faults.forfeit_after_consecutive: expected a number of faults from 1" in message


def test_a_module_after_dash_m_is_no_file(tmp_path: Path) -> None:
    """``python -m pkg.bot`` had its module made a path beside the config (its dots read
    as a file's suffix), so the bot could not start; a script is still made absolute."""
    from arena.tournament.config_bots import command_line
    (tmp_path / "bot.py").write_text("", "utf-8")
    assert command_line([sys.executable, "-m", "pkg.bot", "bot.py"], tmp_path) == (
        sys.executable, "-m", "pkg.bot", str(tmp_path / "bot.py"))


@pytest.mark.parametrize(("file", "text", "says"), [
    ("alice.py", "from arena.actions import Draw\n\n\nclass Bot:\n    def draw(self, view):\n"
                 "        return Draw('stock')\n", "a Python file: a bot is named in a config's"),
    ("games.jsonl", '{"schema": 3, "id": "a"}\n{"schema": 3, "id": "b"}\n',
     "a file of game records"),
])
def test_a_bot_or_records_given_as_the_config_is_named_so(tmp_path: Path, file: str,
                                                          text: str, says: str) -> None:
    """A student's bot file given to arena run got YAML's words: "mapping values are not
    allowed here"."""
    path = tmp_path / file
    path.write_text(text, "utf-8")
    with pytest.raises(BadInput) as refused:
        load_config(path)
    assert str(refused.value).startswith(f"{path}: not a config file ({says}")
    assert "such as configs/quickstart.yaml" in str(refused.value)
