"""The two answers a seat gives in a turn (COM-8): a draw, then a play. Both round-trip text.

>>> str(Draw.parse("stock"))
'stock'
>>> Play.parse("discard KS")
Play.parse('discard KS')
>>> str(Play.parse("meld 9H 10H jk=jh; lay 3 8H; take 2 5S; discard KS"))
'meld 9H 10H JK=JH; lay 3 8H; take 2 5S; discard KS'
>>> Play.parse("declare 8D").declare
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from arena.cards import Card
from arena.errors import BadInput, shown

Source = Literal["stock", "discard", "tournante"]
SOURCES: tuple[Source, ...] = get_args(Source)
PLAY_FORMS = "'meld CARDS', 'lay N CARDS', 'take N CARD', 'discard CARD' or 'declare CARD'"


@dataclass(frozen=True, slots=True)
class Draw:
    """Where the seat takes its card from."""

    source: Source

    @classmethod
    def parse(cls, text: str) -> Draw:
        """Read ``stock``, ``discard`` or ``tournante``."""
        word = text.strip().lower()
        for source in SOURCES:
            if word == source:
                return cls(source)
        raise BadInput(f"bad draw {text!r}: expected one of {', '.join(SOURCES)}")

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return f"Draw.parse({self.source!r})"


@dataclass(frozen=True, slots=True)
class Placed:
    """A card put on the table; a wild card may name the card it stands for (``JK=8H``)."""

    card: Card
    stands_for: Card | None = None

    @classmethod
    def parse(cls, text: str) -> Placed:
        """Read ``8H`` or ``JK=8H``."""
        card, equals, named = text.partition("=")
        if equals and not named:  # "JK=" lost its "=" and read as a joker naming nothing
            raise BadInput(f"bad card {text!r}: expected the card the wild card stands for "
                           "after '=', e.g. JK=8H")
        return cls(Card.parse(card), Card.parse(named) if named else None)

    def __str__(self) -> str:
        return str(self.card) if self.stands_for is None else f"{self.card}={self.stands_for}"


def placed_cards(parts: Sequence[str | Card | Placed], most: int, what: str) -> list[Placed]:
    """Cards put on the table, each a text (``8H``, ``JK=8H``), a Card or a Placed: some, and
    at most ``most`` in ``what`` (one reading for the command line and the library)."""
    if not parts:
        raise BadInput("no cards given: expected cards such as 7H 10D JK")
    if len(parts) > most:
        raise BadInput(f"{len(parts)} cards: expected at most {most} in {what}")
    return [p if isinstance(p, Placed) else Placed(p) if isinstance(p, Card) else
            Placed.parse(p) if isinstance(p, str) else _not_a_card(p) for p in parts]


def _not_a_card(part: object) -> Placed:
    raise BadInput(f"cards: expected cards such as 7H, JK=8H or Card objects, got {shown(part)}")


@dataclass(frozen=True, slots=True)
class LayOff:
    """Cards added to table meld number ``meld`` (R51-13, MAR-11)."""

    meld: int
    cards: tuple[Placed, ...]

    def __str__(self) -> str:
        return f"lay {self.meld} " + " ".join(str(p) for p in self.cards)


@dataclass(frozen=True, slots=True)
class TakeBack:
    """Put ``card`` into table meld ``meld`` and take back the joker it replaces."""

    meld: int
    card: Card

    EXPECTED = "the table combination's number and the card put down for its joker, e.g. '0 8H'"

    @classmethod
    def parse(cls, text: object) -> TakeBack | None:
        """Read ``0 8H`` (``arena open --take``, ``check_opening``'s takebacks); None when
        the text is not of that form, for the caller to name itself in its refusal."""
        number, _, card = text.strip().partition(" ") if isinstance(text, str) else ("", "", "")
        if not number.isdigit() or not card.strip():
            return None
        return cls(int(number), Card.parse(card.strip()))

    def __str__(self) -> str:
        return f"take {self.meld} {self.card}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Play:
    """The whole play decision, checked and applied at once or not at all.

    ``declare`` is the IND declaration (``discard`` is then the card set aside) and the
    TT going out (``discard`` is the last discard).
    """

    discard: Card | None
    declare: bool = False
    melds: tuple[tuple[Placed, ...], ...] = ()
    layoffs: tuple[LayOff, ...] = ()
    takebacks: tuple[TakeBack, ...] = ()

    @property
    def lays_anything(self) -> bool:
        """Whether any card goes to the table."""
        return bool(self.melds or self.layoffs or self.takebacks)

    @property
    def placed(self) -> list[Card]:
        """Every card the play puts on the table: in new combinations, additions, take-backs."""
        out = [p.card for m in self.melds for p in m]
        out += [p.card for lo in self.layoffs for p in lo.cards]
        return out + [t.card for t in self.takebacks]

    @classmethod
    def parse(cls, text: str) -> Play:
        """Read ``meld ...; lay N ...; take N CARD; discard CARD`` or ``declare CARD``."""
        melds: list[tuple[Placed, ...]] = []
        layoffs: list[LayOff] = []
        takebacks: list[TakeBack] = []
        discard: Card | None = None
        declare = False
        for part in (p.split() for p in text.split(";") if p.strip()):
            verb, args = part[0].lower(), part[1:]
            try:
                if verb == "meld":
                    melds.append(tuple(Placed.parse(a) for a in args))
                elif verb == "lay":
                    layoffs.append(LayOff(int(args[0]), tuple(Placed.parse(a) for a in args[1:])))
                elif verb == "take" and len(args) == 2:
                    takebacks.append(TakeBack(int(args[0]), Card.parse(args[1])))
                elif verb in ("discard", "declare") and len(args) == 1:
                    if discard is not None:
                        raise BadInput(f"{' '.join(part)!r} follows another discard or "
                                       "declare; a play ends with one")
                    discard, declare = Card.parse(args[0]), verb == "declare"
                else:
                    raise ValueError(verb)
            except BadInput as exc:  # the form is right, a card is not: say which
                raise BadInput(f"bad play {text!r}: {exc}") from exc
            except (ValueError, IndexError) as exc:
                raise BadInput(f"bad play {text!r}: cannot read {' '.join(part)!r}; expected "
                               f"{PLAY_FORMS}") from exc
        return cls(discard=discard, declare=declare, melds=tuple(melds),
                   layoffs=tuple(layoffs), takebacks=tuple(takebacks))

    def __str__(self) -> str:
        parts = ["meld " + " ".join(str(p) for p in m) for m in self.melds]
        parts += [str(x) for x in self.layoffs] + [str(x) for x in self.takebacks]
        if self.discard is not None:
            parts.append(f"{'declare' if self.declare else 'discard'} {self.discard}")
        return "; ".join(parts)

    def __repr__(self) -> str:
        return f"Play.parse({str(self)!r})"


Action = Draw | Play


@dataclass(frozen=True, slots=True)
class Lay:
    """Lays a seat can make now, and the hand they leave: the discard comes from ``rest``
    (never the card taken this turn, COM-11); advice for bots, never an action itself."""

    melds: tuple[tuple[Placed, ...], ...] = ()
    layoffs: tuple[LayOff, ...] = ()
    takebacks: tuple[TakeBack, ...] = ()
    rest: tuple[Card, ...] = ()

    @property
    def goes_out(self) -> bool:
        """One card left: discarding it wins the round."""
        return len(self.rest) == 1

    @property
    def placed(self) -> list[Card]:
        """Every card these lays put on the table."""
        return self.play(None).placed

    def play(self, discard: Card | None) -> Play:
        """The whole play decision: these lays, then ``discard``."""
        return Play(discard=discard, melds=self.melds, layoffs=self.layoffs,
                    takebacks=self.takebacks)


def plain_answer(answer: object) -> object:
    """An answer as the arena's own types, so that no code of the bot's runs past this
    point: a subclass of ``str``, ``Draw`` or ``Play`` (a bot in process may return one)
    can override what the engine reads of it, and raised inside it. Anything else is
    left for the reading to refuse."""
    if type(answer) in (str, Draw, Play):
        return answer
    if isinstance(answer, Draw | Play):
        answer = str(answer)  # read as its text, as an isolated seat's host sends it
    return str.__add__("", answer) if isinstance(answer, str) else answer


def not_an_answer(answer: object) -> TypeError:
    """The error for an answer of no type the referee reads."""
    value = f" {shown(answer)}" if type(answer) in _PLAIN else ""  # no repr of the bot's
    return TypeError(f"expected a Draw, a Play or their text, got {type(answer).__name__}"
                     f"{value}")


_PLAIN = (int, float, bool, type(None), bytes)  # shown with their value: no code of a bot


def parse_action(text: str) -> Action:
    """Read either kind of answer from its text."""
    words = text.split()
    return Draw.parse(text) if len(words) == 1 and words[0].lower() in SOURCES \
        else Play.parse(text)
