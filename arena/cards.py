"""Cards, their text form (COM-1) and decks.

A card is a small value: ``Card.parse("10H")`` reads it, ``str(card)`` prints it canonically.

>>> Card.parse("th")
Card.parse('10H')
>>> str(Card.parse("10♥")), str(Card.parse("jk"))
('10H', 'JK')
>>> str(Card.parse("5♠\ufe0f")), str(Card.parse("🃏\ufe0f"))  # as phones paste them
('5S', 'JK')
>>> [str(c) for c in parse_cards("AS 2S 3S")]
['AS', '2S', '3S']
>>> len(deck(jokers=2)), len(deck(jokers=4)), len(deck(jokers=0))
(106, 108, 104)
>>> Card.parse("1D")  # doctest: +ELLIPSIS
Traceback (most recent call last):
arena.errors.BadInput: bad card '1D': '1' is not a rank: expected rank A 2-10 J Q K ...
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from arena.errors import BadInput, shown

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
_SUIT_ALIASES = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3,
                 "♤": 0, "♡": 1, "♢": 2, "♧": 3}
_RANK_ALIASES = {r: i + 1 for i, r in enumerate(RANKS)} | {"T": 10}
_EXPECTED = "expected rank A 2-10 J Q K (or T) then suit S H D C (or ♠♥♦♣), or JK"
JOKER_CODE = 52
EMOJI_STYLE = "\ufe0f"  # the variation selector a phone pastes after ♠: the same suit


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card, stored as a code 0..52 so that melds and sets of cards stay cheap.

    Codes run suit by suit (S, H, D, C), ace to king; 52 is the printed joker.
    """

    code: int

    JOKER: ClassVar[Card]

    @property
    def rank(self) -> int:
        """1 (ace) to 13 (king); 0 for a printed joker."""
        return 0 if self.code == JOKER_CODE else self.code % 13 + 1

    @property
    def suit(self) -> int:
        """0..3 for S H D C; 4 for a printed joker."""
        return 4 if self.code == JOKER_CODE else self.code // 13

    @property
    def is_joker(self) -> bool:
        """Printed jokers are wild in every variant and never stand for themselves."""
        return self.code == JOKER_CODE

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds share a colour, which IND-7 uses for its wild cards."""
        return self.suit in (1, 2)

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """Build from rank 1..13 and suit 0..3, the order the solver thinks in."""
        if not (1 <= rank <= 13 and 0 <= suit <= 3):  # Card.of(14, 0) was the ace of hearts
            raise ValueError(f"no card has rank {rank!r} and suit {suit!r}: expected a rank "
                             "from 1 to 13 and a suit from 0 to 3")
        return _BY_CODE[suit * 13 + rank - 1]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read forgiving card text: ``10H``, ``TH``, ``th``, ``10♥``, ``JK``."""
        if not isinstance(text, str):
            raise BadInput(f"bad card {text!r}: expected text such as 10H or JK, not "
                           f"{type(text).__name__}")
        canonical = _BY_TEXT.get(text)
        if canonical is not None:
            return canonical
        token = text.replace(EMOJI_STYLE, "").strip().upper()
        if token in ("JK", "JOKER", "*", "🃏"):
            return _BY_CODE[JOKER_CODE]
        rank, suit = _RANK_ALIASES.get(token[:-1]), _SUIT_ALIASES.get(token[-1:])
        if rank is None or suit is None:
            raise BadInput(f"bad card {shown(text)}: {_wrong_part(token, rank, suit)}{_EXPECTED}")
        return _BY_CODE[suit * 13 + rank - 1]

    def __new__(cls, code: int) -> Card:
        """The one card of each code: cards are compared by identity, in C, on the hot path
        (``in``, ``remove``, ``==``), and a code outside 0..52 is no card."""
        if type(code) is not int or not 0 <= code <= JOKER_CODE:
            raise ValueError(f"no card has code {code!r}: expected 0 to {JOKER_CODE}")
        return _BY_CODE[code]

    def __lt__(self, other: Card) -> bool:
        return self.code < other.code

    def __le__(self, other: Card) -> bool:  # sorted() needs only <, a reader all four
        return self.code <= other.code

    def __gt__(self, other: Card) -> bool:
        return self.code > other.code

    def __ge__(self, other: Card) -> bool:
        return self.code >= other.code

    def __hash__(self) -> int:
        return self.code

    def __str__(self) -> str:
        return _TEXT[self.code]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (_card_from_code, (self.code,))


def _wrong_part(token: str, rank: int | None, suit: int | None) -> str:
    """Which half of a card token is not a rank or a suit, so ``1D`` and ``11S`` say why."""
    if len(token) < 2 or (rank is None and suit is None):
        return ""
    return f"{shown(token[:-1])} is not a rank: " if rank is None else \
        f"{shown(token[-1:])} is not a suit: "


def _card_from_code(code: int) -> Card:
    return _BY_CODE[code]


_BY_CODE: tuple[Card, ...] = tuple(object.__new__(Card) for _ in range(53))
for _code, _card in enumerate(_BY_CODE):
    object.__setattr__(_card, "code", _code)
Card.JOKER = _BY_CODE[JOKER_CODE]
CARDS = _BY_CODE  # the card of each code, for hot paths that hold codes
_TEXT: tuple[str, ...] = (*(RANKS[c % 13] + SUITS[c // 13] for c in range(52)), "JK")
_BY_TEXT: dict[str, Card] = {text: _BY_CODE[code] for code, text in enumerate(_TEXT)}
TEXTS = _TEXT  # the text of each code (``str(card)``), for hot paths that write cards
ALL_CARDS: tuple[Card, ...] = _BY_CODE[:52]


def cards_of(texts: Sequence[str]) -> tuple[Card, ...]:
    """Cards from their texts: canonical ones (``10H``, all the wire sends) by one lookup
    each, others through :meth:`Card.parse`.

    >>> cards_of(["10H", "th", "JK"])
    (Card.parse('10H'), Card.parse('10H'), Card.parse('JK'))
    """
    try:
        return tuple(map(_BY_TEXT.__getitem__, texts))
    except KeyError:
        return tuple(map(Card.parse, texts))


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, or an iterable of tokens."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Card.parse(t) for t in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """Print cards the way ``parse_cards`` reads them back."""
    return " ".join(str(c) for c in cards)


def deck(*, decks: int = 2, jokers: int = 0) -> list[Card]:
    """An unshuffled deck: ``decks`` copies of the 52 cards plus ``jokers`` printed jokers."""
    return list(ALL_CARDS) * decks + [Card.JOKER] * jokers


def check_in_deck(cards: Iterable[Card], held: Mapping[Card, int]) -> None:
    """Refuse more copies of a card than the deck ``held`` holds: no hand or table has them.

    >>> check_in_deck(parse_cards("3S 3S JK"), Counter(deck(decks=2, jokers=2)))
    >>> check_in_deck(parse_cards("3S " * 5), Counter(deck(decks=2, jokers=2)))
    Traceback (most recent call last):
    ...
    arena.errors.BadInput: 3S given 5 times: the deck holds 2
    """
    for card, count in sorted(Counter(cards).items()):
        allowed = held.get(card, 0)
        if count > allowed:
            times = "once" if count == 1 else f"{count} times"
            raise BadInput(f"{card} given {times}: the deck holds {allowed}")


def shuffled(cards: list[Card], rng: random.Random) -> list[Card]:
    """A shuffled copy; every shuffle goes through the game RNG (COM-4)."""
    out = list(cards)
    rng.shuffle(out)
    return out
