"""YAML read with bounds: size, nesting, alias expansion, duplicate keys and bad scalars.

PyYAML's ``safe_load`` keeps the last of two equal keys, recurses once per nesting level,
shares aliased values (so a few hundred bytes can stand for billions of them) and lets
``ValueError`` escape from a bad ``!!timestamp``. Everything here raises :class:`BadYaml`
instead, with the line of the problem: configs, ``-o`` values and stored ``config.yaml``
files are read the same way.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from arena.errors import BadInput, shown

MAX_BYTES = 1 << 20  # a config is a few kilobytes (500 bots take about 40 KB)
MAX_DEPTH = 32  # a config nests 5 levels (bots[0].params.x); bot params get the rest
MAX_WEIGHT = MAX_BYTES  # values and characters once aliases are expanded: no bigger than a file
STORED_BYTES = 64 << 20  # a results folder's config.yaml: every bot's params, 500 bots
STORED_DEPTH = MAX_DEPTH + 4  # it holds a config's params deeper (under identity:)
MERGE = "tag:yaml.org,2002:merge"


class BadYaml(BadInput):
    """YAML that cannot be read: ``problem``, at 1-based ``line`` when it is known."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line

    def at(self, source: str | Path) -> BadInput:
        """The same problem as one line naming its source: ``file.yaml:3: problem``."""
        where = f"{source}:{self.line}" if self.line else f"{source}"
        return BadInput(f"{where}: {self.problem}")


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses deep nesting, duplicate keys and scalars it cannot build."""

    def __init__(self, text: str, deepest: int) -> None:
        super().__init__(text)
        self.depth = 0
        self.deepest = deepest

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self.depth += 1
        try:
            if self.depth > self.deepest:
                raise ComposerError(None, None, f"nested deeper than {self.deepest} levels; "
                                    "expected plain settings",
                                    self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, KeyError, OverflowError, RecursionError) as exc:
            kind = node.tag.rpartition(":")[2] or node.tag
            why = " ".join(str(exc).split())[:120]
            raise ConstructorError(None, None, f"not a valid {kind} ({why})",
                                   node.start_mark) from exc

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        if isinstance(node, MappingNode):
            self._refuse_duplicates(node)
        return super().construct_mapping(node, deep)

    def _refuse_duplicates(self, node: MappingNode) -> None:
        seen: dict[Any, Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == MERGE:
                continue  # `<<: *defaults`: keys given here override the merged ones
            key = self.construct_object(key_node)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:
                continue  # unhashable: SafeLoader says so
            if first is not key_node:
                raise ConstructorError(
                    None, None, f"duplicate key {shown(key)} (first on line "
                    f"{first.start_mark.line + 1}); expected each key once",
                    key_node.start_mark)


def read_text(path: Path, *, limit: int = MAX_BYTES) -> str:
    """The file as UTF-8 text of at most ``limit`` bytes (OSError when it cannot be read);
    a named pipe or a device is refused, not read: either could make the reader wait
    forever or read without end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe opens without a writer
    with open(fd, "rb") as f:
        _check_regular(path, os.fstat(fd).st_mode)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise BadYaml(f"larger than {_size(limit)}; expected a file of settings")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise BadYaml(f"not UTF-8 text (byte 0x{data[exc.start]:02x}); expected a UTF-8 "
                      "file", line) from exc


def _check_regular(path: Path, mode: int) -> None:
    """A folder says so as the system does; a pipe, a socket or a device is no settings
    file."""
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(mode):
        raise BadYaml("not a regular file (a named pipe, a socket or a device); expected a "
                      "file of settings")


def load(text: str, *, deepest: int = MAX_DEPTH,
         heaviest: int = MAX_WEIGHT) -> tuple[Any, Node | None]:
    """The data of one YAML document, and its node graph (for line numbers)."""
    loader = None
    try:
        loader = _Loader(text, deepest)
        node = loader.get_single_node()
        if node is None:
            return None, None
        check_weight(node, heaviest)
        return loader.construct_document(node), node
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not valid YAML"
        raise BadYaml(" ".join(problem.split()), mark.line + 1 if mark else None) from exc
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise BadYaml(f"special character {chr(exc.character)!r} is not allowed; "
                      "expected printable text", line) from exc
    except yaml.YAMLError as exc:
        raise BadYaml(" ".join(str(exc).split())[:200] or "not valid YAML") from exc
    finally:
        if loader is not None:
            loader.dispose()


def load_stored(path: Path) -> Any:
    """A ``config.yaml`` that arena run wrote: larger and deeper than a config may be."""
    return load(read_text(path, limit=STORED_BYTES), deepest=STORED_DEPTH,
                heaviest=STORED_BYTES)[0]


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit >> 10} KiB"


def children(node: Node) -> Iterator[Node]:
    """A node's keys and values, or items."""
    if isinstance(node, MappingNode):
        for key, value in node.value:
            yield key
            yield value
    elif isinstance(node, SequenceNode):
        yield from node.value


def check_weight(root: Node, limit: int = MAX_WEIGHT) -> None:
    """Refuse an alias inside its own anchor, and aliases that expand past ``limit`` values
    and characters; each node is visited once, however often it is aliased."""
    weight: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            open_.discard(id(node))
            own = len(node.value) if isinstance(node, ScalarNode) else 0
            weight[id(node)] = min(limit + 1, 1 + own + sum(weight[id(c)]
                                                             for c in children(node)))
            if weight[id(node)] > limit:
                raise ConstructorError(None, None, "aliases expand past "
                                       f"{_size(limit)} of values; expected plain settings",
                                       node.start_mark)
            continue
        if id(node) in weight:
            continue
        open_.add(id(node))
        stack.append((node, True))
        for child in children(node):
            if id(child) in open_:
                raise ConstructorError(None, None, "an alias inside its own anchor; expected "
                                       "plain settings", child.start_mark)
            stack.append((child, False))
