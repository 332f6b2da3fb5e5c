"""The generic engine: turns, draws, the stock and its reshuffle, caps, rounds, views.

A variant subclasses :class:`Game` and overrides a few hooks (deal, play checks, scoring,
safe play). The engine owns the state; seats only ever get a :class:`~arena.engine.view.View`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.actions import Action, Draw, Lay, Placed, Play, Source, TakeBack
from arena.cards import Card
from arena.engine.melds import NO_WILDS, Kind, Meld, MeldCheck, WildSpec
from arena.engine.options import OptionSpec, resolve_options
from arena.engine.results import RoundEnd, RoundResult
from arena.engine.view import (
    Decision,
    PlayKind,
    PublicEvent,
    RoundSummary,
    TableMeld,
    View,
    ViewPart,
)
from arena.errors import BadInput, IllegalAction, counted

DECLARE_ONLY: frozenset[PlayKind] = frozenset({"declare"})
# The most cards a calculator takes. No hand of any variant holds more than 15 cards (the
# dealer's in Rummy 51 and Moroccan rummy), and the best-arrangement search grows fast with
# each card past that: 20 leaves room for any hand a player asks about and answers within
# about a second.
MAX_HAND = 20
MAX_MELD = 36  # the calculators' most cards in one combination: no combination holds more
# than about 20 (a Three-Thirteen set of every copy of one rank and every wild card)


def check_discard_type(play: Play) -> None:
    """TypeError for a play whose discard is text: "8H is not in the hand" was said of it,
    with 8H held."""
    if play.discard is not None and type(play.discard) is not Card:
        raise TypeError(f"Play.discard takes a Card, not {type(play.discard).__name__} "
                        f"{play.discard!r}; read text with arena.cards.Card.parse")


SEEDS = 1 << 63  # a game's seed is below: drawn in 63 bits, and so bounded everywhere (a
# record holding another is refused)


def _check_setup(seed: Any, decks: Sequence[Sequence[Card]], dealer: int | None,
                 players: int) -> None:
    """A game's seed, stacked decks and dealer, as the constructor takes them: a seed of
    None (a fresh game each time) or text played without a word, and a bad deck failed in
    the deal with an IndexError or AttributeError."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEEDS:
        raise BadInput(f"seed {seed!r}: expected an integer from 0 to {SEEDS - 1}")
    if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, int)
                               or not 0 <= dealer < players):
        raise BadInput(f"dealer {dealer!r}: expected a seat from 0 to {players - 1}")
    if isinstance(decks, Card) or any(isinstance(d, Card | str) for d in decks):
        raise BadInput("decks: expected a list of decks, each a list of cards "
                       "([deck(decks=2, jokers=2)], not one deck)")
    for i, stacked in enumerate(decks):
        if not all(isinstance(c, Card) for c in stacked):
            raise BadInput(f"decks[{i}]: expected Card objects (arena.cards.parse_cards "
                           "reads text)")


@dataclass(frozen=True, slots=True, kw_only=True)
class HandReport:
    """The rules calculator's answer for a list of cards (``arena hand``)."""

    variant: str
    cards: tuple[Card, ...]
    wild: str | None
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    points: int
    valid_declaration: bool
    reason: str | None = None  # why it is no valid declaration: "RULE-ID: what is missing"
    named: tuple[tuple[str, ...], ...] = ()  # each meld as a lay writes it (JK=5C), if set

    def meld_cards(self) -> list[list[str]]:
        """Each meld's cards as shown: as a lay would write them where ``named`` says."""
        return [list(n) for n in self.named] if self.named else \
            [[str(c) for c in m.cards] for m in self.melds]

    def as_json(self) -> dict[str, Any]:
        """The documented JSON shape of ``arena hand --json``."""
        return {"variant": self.variant, "cards": [str(c) for c in self.cards],
                "wild": self.wild,
                "melds": [{"kind": m.kind, "cards": cards}
                          for m, cards in zip(self.melds, self.meld_cards(), strict=True)],
                "deadwood": [str(c) for c in self.deadwood], "points": self.points,
                "valid_declaration": self.valid_declaration, "reason": self.reason}


@dataclass(frozen=True, slots=True, kw_only=True)
class MeldReport:
    """The meld calculator's answer for one group (``arena meld``); in the variants that
    count combinations, also the cards as read and what they count (``counted``)."""

    valid: bool
    kind: Kind | None
    reason: str | None
    counted: bool = False
    cards: tuple[Placed, ...] = ()  # as read: each joker with the card it stands for
    points: int | None = None  # what the group counts toward an opening
    note: str | None = None  # why ``points`` is None or 0 ("RULE-ID: why")

    @classmethod
    def of(cls, check: MeldCheck) -> MeldReport:
        """The verdict alone, for variants that count no combination."""
        return cls(valid=check.valid, kind=check.kind, reason=check.reason)

    def as_json(self) -> dict[str, Any]:
        """The documented JSON shape of ``arena meld --json``."""
        verdict: dict[str, Any] = {"valid": self.valid, "kind": self.kind,
                                   "reason": self.reason}
        if not self.counted:
            return verdict
        return verdict | {"cards": [str(p) for p in self.cards], "points": self.points,
                          "note": self.note}


@dataclass(frozen=True, slots=True, kw_only=True)
class CountedMeld:
    """One combination of an opening, as read, with what it counts toward it (None: it is
    no combination)."""

    cards: tuple[Placed, ...]
    points: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class OpeningReport:
    """The opening calculator's answer (``arena open``): do these combinations open now?"""

    variant: str
    level: int | None  # None: the variant's mode has no first lay-down
    melds: tuple[CountedMeld, ...]
    total: int | None  # None when some group is no combination
    opens: bool
    rule: str | None  # the rule that refuses it
    reason: str | None

    def as_json(self) -> dict[str, Any]:
        """The documented JSON shape of ``arena open --json``."""
        return {"variant": self.variant, "level": self.level,
                "melds": [{"cards": [str(p) for p in m.cards], "points": m.points}
                          for m in self.melds],
                "total": self.total, "opens": self.opens, "rule": self.rule,
                "reason": self.reason}


@dataclass(slots=True)
class _Turn:
    """What happened so far in the current turn (the engine's private bookkeeping)."""

    drawn: Card | None = None
    source: Source | None = None
    events: list[PublicEvent] = field(default_factory=list)


class Game:
    """One game of a variant, from its first deal to its final totals."""

    name: ClassVar[str]
    version: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    OPTIONS: ClassVar[tuple[OptionSpec, ...]]
    draw_rule: ClassVar[str] = "COM-8"
    view_part: ClassVar[type[ViewPart] | None] = None  # the family's part of each view

    def __init__(self, *, seed: int, options: Mapping[str, Any] | None = None,
                 decks: Sequence[Sequence[Card]] = (), dealer: int | None = None) -> None:
        """``decks`` and ``dealer`` stack the cards for scenario tests: each deck is dealt
        in the order given (first card first) instead of a shuffle, round after round."""
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options or {})
        self.players: int = int(self.options["players"])
        _check_setup(seed, decks, dealer, self.players)
        self.seed = seed
        self.rng = random.Random(seed)
        self.stacked = [list(reversed(d)) for d in decks]
        self.totals = [0] * self.players
        self.results: list[RoundResult] = []
        self.log: list[tuple[int, Action]] = []
        self.round = 0
        self.dealer = self.rng.randrange(self.players)  # COM-3
        if dealer is not None:
            self.dealer = dealer
        self.finished = False
        self._start_round()

    def __repr__(self) -> str:
        """Where the game stands, for a REPL or a failing test (not its hidden cards)."""
        state = "finished" if self.finished else \
            f"round {self.round}, seat {self.to_act} to {self.decision}"
        return (f"<{type(self).__name__} {self.version} seed={self.seed} "
                f"players={self.players}: {state}, totals {self.totals}>")

    # ------------------------------------------------------------------ round lifecycle

    def _start_round(self) -> None:
        self.round += 1
        self.hands: list[list[Card]] = [[] for _ in range(self.players)]
        self.stock: list[Card] = []  # top of the stock is the end of the list
        self.pile: list[Card] = []  # top of the discard pile is the end of the list
        self.history: list[PublicEvent] = []
        self._shown_history: tuple[list[PublicEvent], tuple[PublicEvent, ...]] | None = None
        self.table: list[TableMeld] = []
        self.active = [True] * self.players
        self.draws = 0
        self.turn = _Turn()
        self.round_over = False
        self.wilds: WildSpec = NO_WILDS
        self.to_act = (self.dealer + 1) % self.players
        self.decision: Decision = "draw"
        deck = len(self.stacked[0]) if self.stacked else 0
        try:
            self.deal()
        except IndexError:  # a stacked deck the deal ran out of: "pop from empty list"
            raise BadInput(f"decks[0]: {counted(deck, 'card')}, too few for the deal to "
                           f"{self.players} seats") from None

    def end_round(self, reason: RoundEnd, penalties: Sequence[int]) -> None:
        """Record the round, add its penalties, then deal the next round or finish."""
        self.round_over = True
        result = RoundResult(round=self.round, dealer=self.dealer, reason=RoundEnd(reason),
                             penalties=tuple(penalties))
        self.results.append(result)
        for seat, points in enumerate(penalties):
            self.totals[seat] += points
        self.last_summary = RoundSummary(self.round, reason,
                                         tuple(tuple(h) for h in self.hands),
                                         tuple(penalties), tuple(self.totals))
        self.last_history = tuple(self.history)  # its last turn was in no seat's view
        if self.game_over():
            self.finished = True
        else:
            self.dealer = (self.dealer + 1) % self.players
            self._start_round()

    # ------------------------------------------------------------------ hooks

    def deal(self) -> None:
        """Shuffle, deal, set the wild cards and the first seat (variant hook)."""
        raise NotImplementedError

    def shuffled_deck(self, cards: list[Card]) -> list[Card]:
        """The round's deck with its top card last: shuffled by the game RNG, or stacked."""
        if self.stacked:
            return self.stacked.pop(0)
        self.rng.shuffle(cards)
        return cards

    def game_over(self) -> bool:
        """Whether the match option is met after the round just ended (variant hook)."""
        raise NotImplementedError

    def check_play(self, seat: int, play: Play) -> None:
        """Raise IllegalAction unless ``play`` is legal now (variant hook)."""
        raise NotImplementedError

    def apply_play(self, seat: int, play: Play) -> None:
        """Apply a play that ``check_play`` accepted (variant hook)."""
        raise NotImplementedError

    def forced_end(self, reason: RoundEnd) -> None:
        """End the round at the draw cap or on a dead stock (variant hook)."""
        raise NotImplementedError

    def hand_points(self, hand: Sequence[Card]) -> int:
        """What this hand would pay if the round ended now (variant hook, COM-10)."""
        raise NotImplementedError

    def card_value(self, card: Card) -> int:
        """A card's value for the COM-10 tie-break (variant hook)."""
        raise NotImplementedError

    @classmethod
    def view_points(cls, view: View, hand: Sequence[Card]) -> int:
        """For bots: what ``hand`` would pay if the round ended now, from what ``view``
        shows (variant hook; :func:`arena.advice.hand_points` asks it)."""
        raise NotImplementedError(f"{cls.name}: no hand points for bots")

    @classmethod
    def view_going_out(cls, view: View) -> Card | None:
        """For bots: the card to discard or set aside to go out now, or None (variant hook;
        :func:`arena.advice.going_out_card` asks it)."""
        return None

    @classmethod
    def view_lay(cls, view: View, *, taking: Card | None = None) -> Lay | None:
        """For bots: lays the seat may make now (after taking ``taking``), or None (variant
        hook; :func:`arena.advice.suggest_lay` asks it). Nothing is laid by default."""
        return None

    @classmethod
    def view_deadwood(cls, view: View, hand: Sequence[Card]) -> int:
        """For bots: what the cards outside combinations are worth (variant hook;
        :func:`arena.advice.deadwood_points` asks it), for variants that lay combinations."""
        raise BadInput(f"{view.variant}: deadwood_points is for variants that lay "
                       "combinations (R51, MAR)")

    @classmethod
    def view_deadwood_cards(cls, view: View, hand: Sequence[Card]) -> int:
        """For bots: how many cards stay outside combinations (variant hook;
        :func:`arena.advice.deadwood_cards` asks it), for variants that lay combinations."""
        raise BadInput(f"{view.variant}: deadwood_cards is for variants that lay "
                       "combinations (R51, MAR)")

    @classmethod
    def view_chance_taken(cls, view: View, unseen: Counter[Card],
                          held: Mapping[int, Counter[Card]],
                          cards: Sequence[Card], rng: random.Random, hands: int,
                          after: Lay | None) -> list[float]:
        """For bots: how likely the next seat is to take each card (variant hook;
        :func:`arena.advice.chance_taken` asks it), for variants that lay combinations."""
        raise BadInput(f"{view.variant}: chance_taken is for variants that lay "
                       "combinations (R51, MAR)")

    @classmethod
    def view_sample(cls, view: View, options: Mapping[str, Any], unseen: Counter[Card],
                    held: Mapping[int, Counter[Card]], pile: list[Card], rng: random.Random
                    ) -> Game:
        """For bots: the game of ``view`` with the ``unseen`` cards dealt at random, each other
        hand first given what it is known to hold (``held``); ``pile`` is the discard pile,
        bottom first (variant hook; :func:`arena.advice.sample_game` asks it)."""
        raise BadInput(f"{view.variant}: sample_game is for the variants that lay "
                       "combinations (R51, MAR)")

    def restore(self, view: View, unseen: Counter[Card], held: Mapping[int, Counter[Card]],
                pile: list[Card], rng: random.Random) -> None:
        """Put this game in the state of ``view``, the cards it hides dealt from ``unseen``
        (the engine's half of :meth:`view_sample`; the variant adds its own state)."""
        if self.players != view.players:
            raise BadInput(f"{view.variant}: the options give {self.players} players, the "
                           f"view {view.players}: pass the options start_game gave")
        cards = list(unseen.elements())
        rng.shuffle(cards)
        for seat, size in enumerate(view.hand_sizes):
            if seat == view.seat:
                self.hands[seat] = list(view.hand)
                continue
            hand = list(held.get(seat, Counter()).elements())[:size]
            self.hands[seat] = hand + [cards.pop() for _ in range(min(size - len(hand),
                                                                         len(cards)))]
        under = max(0, len(cards) - view.stock_size)  # unseen, so under the pile: the card
        self.stock, self.pile = cards[under:], cards[:under] + pile  # turned up at the deal
        self.table, self.history = list(view.table), list(view.history)
        self._shown_history = None
        self.round, self.dealer, self.totals = view.round, view.dealer, list(view.scores)
        self.active, self.draws = list(view.active), view.draws
        self.to_act, self.decision = view.seat, view.decision
        self.turn = _Turn(drawn=view.drawn, source=view.drawn_from)

    @classmethod
    def team_labels(cls, options: Mapping[str, Any]) -> tuple[int, ...] | None:
        """A team label per seat when seats play as partners (ratings then never compare
        partners); None when everyone plays alone (variant hook)."""
        return None

    # ------------------------------------------------------------------ calculators

    @classmethod
    def hand_report(cls, cards: Sequence[Card], *, wild: Card | None, round: int | None,
                    options: Mapping[str, Any]) -> HandReport:
        """``arena hand``: best arrangement, deadwood, points, declaration (variant hook)."""
        raise BadInput(f"{cls.name}: the hand calculator is not available for this variant")

    @classmethod
    def meld_report(cls, cards: Sequence[Card | Placed], *, wild: Card | None,
                    round: int | None, options: Mapping[str, Any]) -> MeldReport:
        """``arena meld``: is this one valid combination, and of which kind (variant hook);
        a :class:`Placed` card may name what a joker stands for (``JK=8H``)."""
        raise BadInput(f"{cls.name}: the meld calculator is not available for this variant")

    @classmethod
    def opening_report(cls, melds: Sequence[Sequence[Placed]], *, level: int | None,
                       options: Mapping[str, Any], table: Sequence[Sequence[Placed]] = (),
                       takebacks: Sequence[TakeBack] = ()) -> OpeningReport:
        """``arena open``: do these new combinations open at ``level`` (None: the variant's
        starting level), with ``table`` on the table and ``takebacks`` made first (variant
        hook, for variants with a first lay-down)."""
        raise BadInput(f"{cls.name}: the opening calculator is not available for this "
                       "variant: it has no first lay-down")

    @classmethod
    def deck_counts(cls, options: Mapping[str, Any]) -> Mapping[Card, int] | None:
        """How many copies of each card the variant's deck holds under ``options``, so that
        the calculators refuse cards no hand can hold; None: the variant does not say, and
        nothing is refused (variant hook)."""
        return None

    @classmethod
    def unnamed(cls, cards: Sequence[Card | Placed], why: str) -> list[Card]:
        """The cards of a calculator question, refusing a wild card's named reading where
        the variant reads wild cards by itself (``why`` cites the rule)."""
        for card in cards:
            if isinstance(card, Placed) and card.stands_for is not None:
                raise BadInput(f"{cls.name}: {card}: the meld calculator finds what each wild "
                               f"card stands for here ({why}); give {card.card} alone")
        return [c.card if isinstance(c, Placed) else c for c in cards]

    # ------------------------------------------------------------------ turn flow

    def legal_draws(self) -> tuple[Source, ...]:
        """The draw sources open to the seat to act."""
        return ("stock", "discard") if self.pile and not self.all_copies_of_top() else \
            ("stock",)

    def all_copies_of_top(self) -> bool:
        """The hand to act holds nothing but copies of the top discard (four jokers in a
        3-card Three-Thirteen hand): taking it would leave no card to discard, since no copy
        of a taken card may be discarded that turn (COM-11 with COM-1)."""
        hand, top = self.hands[self.to_act], self.pile[-1]
        return bool(hand) and hand[0] == top and hand.count(top) == len(hand)  # mostly the
        # first card settles it: this runs for every draw decision

    def apply(self, action: Action) -> str | None:
        """Check and apply the answer of the seat to act; nothing changes if it is illegal.

        Returns None, or the remedy played instead of the answer, with the rule it cites
        (R51-9, MAR-8: a taken discard not laid goes back and the stock is drawn): the
        referee counts one fault and asks the seat again."""
        if self.finished:
            raise IllegalAction("the game is over", rule="COM-13")
        seat = self.to_act
        if isinstance(action, Draw):
            if self.decision != "draw":
                raise IllegalAction("a play is expected, not a draw", rule=self.draw_rule)
            self._draw(seat, action.source)
        else:
            if not isinstance(action, Play):  # text read as a play fails far from here
                raise TypeError(f"apply takes a Draw or a Play, not {type(action).__name__} "
                                f"{action!r}; read text with arena.actions.parse_action")
            if self.decision != "play":
                raise IllegalAction("a draw is expected first", rule=self.draw_rule)
            check_discard_type(action)
            self.check_play(seat, play=action)
            self.log.append((seat, action))
            self.apply_play(seat, action)
        return None

    def _draw(self, seat: int, source: Source) -> None:
        if source not in self.legal_draws():
            raise self.draw_refused(source)
        self.log.append((seat, Draw(source)))
        if source == "stock" and not self.stock and not self._reshuffle():
            self.forced_end(RoundEnd.DEAD_STOCK)  # COM-12: a draw that finds no stock ends it
            return
        card = self.stock.pop() if source == "stock" else self.take_from(source)
        if source != "stock":
            self.history.append(PublicEvent(seat, "take", (card,)))
        self.hands[seat].append(card)
        self.draws += 1
        self.turn = _Turn(drawn=card, source=source)
        self.decision = "play"

    def draw_refused(self, source: Source) -> IllegalAction:
        """Why ``source`` is not open now (variants name their own rule)."""
        if source == "discard" and self.pile and self.all_copies_of_top():
            return IllegalAction(f"every card in the hand is a copy of {self.pile[-1]}: "
                                 "taking it would leave nothing to discard", rule="COM-11")
        return IllegalAction(f"cannot draw from the {source} now "
                             f"(legal: {', '.join(self.legal_draws())})", rule=self.draw_rule)

    def take_from(self, source: Source) -> Card:
        """Take the visible card a draw from ``source`` gets (the R51 tournante has its own
        place)."""
        return self.pile.pop()

    def _reshuffle(self) -> bool:
        """COM-12: all of the discard pile but its top card becomes the new stock."""
        if len(self.pile) < 2:
            return False
        top = self.pile.pop()
        self.stock = self.pile
        self.rng.shuffle(self.stock)
        self.pile = [top]
        return True

    def discard(self, seat: int, card: Card) -> None:
        """Move ``card`` from the hand to the pile, in public."""
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.history.append(PublicEvent(seat, "discard", (card,)))

    def end_turn(self) -> None:
        """Pass to the next active seat, or end the round at the draw cap (COM-9)."""
        if self.draws >= self.options["draw_cap"]:
            self.forced_end(RoundEnd.DRAW_CAP)
            return
        self.next_seat()

    def next_seat(self) -> None:
        """The next active seat clockwise starts its draw decision."""
        seat = self.to_act
        for _ in range(self.players):
            seat = (seat + 1) % self.players
            if self.active[seat]:
                break
        self.to_act = seat
        self.decision = "draw"
        self.turn = _Turn()

    def check_discard(self, seat: int, play: Play, rule: str) -> Card:
        """The discard is in hand and was not taken from the pile this turn (COM-11)."""
        card = play.discard
        if card is None:
            raise IllegalAction("the play must end with a discard", rule=rule)
        if card not in self.hands[seat]:
            raise IllegalAction(f"{card} is not in the hand", rule=rule)
        if self.turn.source in ("discard", "tournante") and card == self.turn.drawn:
            raise IllegalAction(f"{card} was taken from the {self.turn.source} this turn "
                                "and may not be discarded", rule="COM-11")
        return card

    # ------------------------------------------------------------------ safe action

    def safe_action(self) -> Action:
        """COM-10: the action played when a seat faults on its current decision."""
        if self.decision == "draw":
            return Draw("stock")
        return Play(discard=self.safe_discard())

    def safe_discard(self) -> Card:
        """The drawn stock card, else the safe card of COM-10."""
        if self.turn.source == "stock" and self.turn.drawn is not None:
            return self.turn.drawn
        return self.safe_card(self.to_act)

    def safe_card(self, seat: int) -> Card:
        """COM-10: the non-wild card, not taken this turn, whose loss leaves the least penalty."""
        hand = self.hands[seat]
        taken = self.turn.drawn if self.turn.source != "stock" else None
        candidates = [c for c in set(hand) if c != taken and not self.wilds.is_wild(c)]
        if not candidates:
            candidates = [c for c in set(hand) if c != taken] or list(set(hand))

        def cost(card: Card) -> tuple[int, int, int, int]:
            rest = list(hand)
            rest.remove(card)
            return (self.hand_points(rest), -self.card_value(card), -card.rank, card.suit)

        return min(candidates, key=cost)

    # ------------------------------------------------------------------ views

    def view(self, seat: int) -> View:
        """What ``seat`` is shown now (COM-5)."""
        if isinstance(seat, bool) or not isinstance(seat, int) or \
                not 0 <= seat < self.players:  # -1 showed the last seat's hand
            raise BadInput(f"seat {seat!r}: expected a seat from 0 to {self.players - 1}")
        return View(
            variant=self.version, seat=seat, players=self.players, decision=self.decision,
            round=self.round, dealer=self.dealer, hand=tuple(self.hands[seat]),
            drawn=self.turn.drawn if seat == self.to_act else None,
            drawn_from=self.turn.source if seat == self.to_act else None,
            kept=self.turn.drawn if seat == self.to_act and self.turn.source not in
            (None, "stock") else None,
            discard_top=self.pile[-1] if self.pile else None, history=self._history_now(),
            table=tuple(self.table), hand_sizes=tuple(map(len, self.hands)),
            stock_size=len(self.stock), scores=tuple(self.totals), active=tuple(self.active),
            wilds=self.wilds,
            legal_draws=self.legal_draws() if self.decision == "draw" else (),
            draws=self.draws, draw_cap=int(self.options["draw_cap"]),
            plays=self.play_kinds(), part=self.part_for(seat))

    def _history_now(self) -> tuple[PublicEvent, ...]:
        """The round's public events as a tuple, built again only when one was added (the
        list only grows within a round; a new round brings a new list)."""
        events = self.history
        cached = self._shown_history
        if cached is None or cached[0] is not events or len(cached[1]) != len(events):
            cached = self._shown_history = (events, tuple(events))
        return cached[1]

    def play_kinds(self) -> frozenset[PlayKind]:
        """What a play may do beside a discard: declaring (going out) unless a variant says."""
        return DECLARE_ONLY

    def part_for(self, seat: int) -> ViewPart | None:
        """The variant family's part of ``seat``'s view (its :attr:`view_part`), or None."""
        return None

    def headline(self) -> str:
        """What a watcher should know of this round beside its dealer (", indicator 7C")."""
        part = self.part_for(self.dealer)
        return "" if part is None else part.headline()

    # ------------------------------------------------------------------ results

    def ranks(self) -> tuple[int, ...]:
        """Competition ranks by total, lowest first; equal totals share (COM-13)."""
        return tuple(1 + sum(t < mine for t in self.totals) for mine in self.totals)
