"""A bot that looks ahead: it deals itself possible futures from the cards it has not seen,
plays each choice forward through the same futures, and keeps the choice they favour.

How it decides (docs/bots.md tells it at more length):

1. The *unseen* cards are the deck less what this seat has seen: its hand, the table, the
   discard pile, the cards others took from it (:func:`arena.advice.unseen_cards`). Any of
   them may come off the stock next.
2. A *future* is ``depth + 1`` of them in a random order: this seat's next draws.
3. Each choice (where to draw from, or which card to discard) is played forward through
   the same futures: draw, then shed as ``greedy`` would. Its score is what the hand is
   worth at the end (0 when it could go out on the way, less the draws it saved).
4. Futures are dealt until the thinking budget is spent; the lowest mean score is played.
5. With ``mistakes`` above 0, that share of its draws and discards is picked at random
   instead (a legal one, from its own seed): the weaker levels of a ladder, made the way
   chess engines make theirs, since more thinking time alone does not make it stronger.
6. R51 is the exception: there no look-ahead beat greedy, but not feeding the next seat
   did (half the openings take the other seat's discard). It draws and sheds as greedy,
   except once the next seat has opened: then it deals that seat possible hands from the
   unseen cards (:func:`arena.advice.chance_taken`) and, of greedy's first three
   discards, throws the one they take least often. And once it has opened while no
   opponent has, it sheds for speed, not value: going out then makes each of them pay a
   flat 100, which all but decides a game.

Lays, declarations and going out are as ``greedy`` makes them: the search is about which
cards to keep. It never sees other hands or the stock, only what its views show.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from arena.actions import Draw, Play, Source
from arena.advice import (
    Lay,
    chance_taken,
    deadwood_cards,
    deadwood_points,
    going_out_card,
    hand_points,
    suggest_lay,
    unseen_cards,
)
from arena.bot import GameInfo
from arena.cards import Card
from arena.variants.laying import LayingPart
from arena.view import View
from bots.greedy import GreedyBot, partners, without

Score = Callable[[Sequence[Card]], int]
CANDIDATES = 5  # discards searched: the best by greedy's measure (the rest rarely win)
SHED_OPTIONS = 4  # cards a rollout considers shedding besides the one it drew
SAFE_SHARE = 0.25  # of a decision's clock, the most it thinks: room for a loaded machine
JOKER_WORTH = 10  # what a joker adds to an opening, counted as the card it would stand for
OUT_BONUS = 12  # points a draw saved by going out early is worth in a score
FEED_COST = 6  # points a discard that another seat can use costs in a score
RACE_CARD = 100  # in the race to lay a whole hand, a card outside combinations outweighs any value
GUARD_CANDIDATES = 3  # R51: greedy's first discards weighed against feeding the next seat
GUARD_HANDS = 10  # hands that seat might hold, dealt per batch
GUARD_MARGIN = 0.1  # a share of hands taking it this close to the least counts as the least


@dataclass(frozen=True, slots=True)
class Choice:
    """One way to play the decision: the hand it keeps (shed order first), that hand's score,
    the card it draws first (None: the future's own first card) and the card it discards."""

    hand: list[Card]
    score: int
    first: Card | None = None
    discarded: Card | None = None


class SearchBot:
    """Determinised look-ahead within a thinking budget; ``samples`` fixes the number of
    futures instead, so a game replays the same on any machine (the clock still stops it);
    ``mistakes`` is the share of draws and discards it picks at random, for weaker levels."""

    def __init__(self, budget_ms: float = 40, depth: int = 2, samples: int | None = None,
                 mistakes: float = 0.0) -> None:
        if not (_number(budget_ms) and _number(mistakes) and _whole(depth)
                and (samples is None or _whole(samples))) or not budget_ms > 0 \
                or depth < 0 or (samples is not None and samples < 1) or not 0 <= mistakes <= 1:
            raise ValueError("search: budget_ms > 0, depth >= 0, samples >= 1 (whole numbers) "
                             "and mistakes from 0 to 1 expected")
        self.budget_s = budget_ms / 1000
        self.depth = depth
        self.samples = samples
        self.mistakes = mistakes
        self.rng = random.Random(0)
        self.options: Mapping[str, Any] = {}
        self.clock_s = {"draw": 15.0, "play": 22.0}

    def start_game(self, info: GameInfo) -> None:
        """Its own seed makes it reproducible; the clock says how long it may think."""
        self.rng = random.Random(info.seed)
        self.options = info.options
        self.clock_s = {"draw": info.draw_ms / 1000, "play": info.play_ms / 1000}

    # ------------------------------------------------------------------ decisions

    def draw(self, view: View) -> Draw:
        until = self._deadline(view)
        source: Source = "tournante" if "tournante" in view.legal_draws else "discard"
        top = view.part_as(LayingPart).tournante if source == "tournante" else view.discard_top
        if top is None or source not in view.legal_draws:
            return Draw("stock")
        if source == "discard" and view.allows("meld") and _must_lay_taken(view) \
                and suggest_lay(view, taking=top) is None:
            return Draw("stock")  # R51-9, MAR-8: a taken discard must be laid at once
        if self._errs():
            return Draw(self.rng.choice(sorted((source, "stock"))))
        if _guards(view):  # R51: greedy's draw (look-ahead did not beat it there)
            return GreedyBot().draw(view)
        score = self._scorer(view, opened=_opened(view))
        hand = _shed_order(view.hand, score)
        now = score(hand)
        choices: dict[str, Choice] = {source: Choice(hand, now, top), "stock": Choice(hand, now)}
        return Draw(cast(Source, self._best(view, choices, score, until, draws=self.depth + 1)))

    def play(self, view: View) -> Play:
        until = self._deadline(view)
        if view.allows("meld"):
            lay = suggest_lay(view)
            hand = list(view.hand if lay is None else lay.rest)
            opened = _opened(view) or (lay is not None and bool(lay.melds))
        else:
            out = going_out_card(view)
            if out is not None:
                return Play(discard=out, declare=True)
            lay, hand, opened = None, list(view.hand), False
        if self._errs():  # any card but one taken this turn (COM-11)
            discard = self.rng.choice(sorted({c for c in hand if c != view.kept}))
            return Play(discard=discard) if lay is None else lay.play(discard)
        score = self._scorer(view, opened=opened)
        order = self._short_list(view, hand, score, opened=opened)
        if _guards(view):
            discard = self._guarded(view, order, lay, until)
            return Play(discard=discard) if lay is None else lay.play(discard)
        choices = {str(c): Choice(without(_in_order(hand, order), c), score(without(hand, c)),
                                  discarded=c) for c in order[:CANDIDATES]}
        discard = Card.parse(self._best(view, choices, score, until, draws=self.depth))
        return Play(discard=discard) if lay is None else lay.play(discard)

    def _errs(self) -> bool:
        """Whether this decision is one of the share it plays at random (its own seed)."""
        return self.mistakes > 0 and self.rng.random() < self.mistakes

    # ------------------------------------------------------------------ the search

    def _best(self, view: View, choices: dict[str, Choice], score: Score, until: float, *,
              draws: int) -> str:
        """The choice with the lowest mean score over the futures dealt by ``until``: the
        same futures for every choice, so that luck cancels out of their comparison. A tie
        goes to the choice listed first: greedy's, for a discard."""
        place = {name: i for i, name in enumerate(choices)}
        if len(choices) == 1 or draws == 0:
            return min(choices, key=lambda name: (choices[name].score, place[name]))
        pool = list(unseen_cards(view, self.options).elements())
        length = min(len(pool), draws)
        totals = dict.fromkeys(choices, 0.0)
        dealt = 0
        while dealt < (self.samples or 1 << 30) and (dealt == 0 or time.monotonic() < until):
            future = self.rng.sample(pool, length)
            for name, choice in choices.items():
                cards = future if choice.first is None else [choice.first, *future[1:]]
                totals[name] += _play_forward(choice, cards, score, view.is_wild)
            dealt += 1
        fed = {name: FEED_COST * dealt * _feeds(view, choice.discarded)
               for name, choice in choices.items()}
        return min(choices, key=lambda name: (totals[name] + fed[name], choices[name].score,
                                              place[name]))

    def _short_list(self, view: View, hand: list[Card], score: Score, *, opened: bool
                    ) -> list[Card]:
        """The cards it may discard, likeliest first: in a race (MAR Tallaj's to lay a whole
        hand, R51's to go out while no opponent has opened), the card whose loss leaves
        fewest cards outside combinations, then the one with fewest partners, the costlier
        on a tie; elsewhere where cards are laid, by greedy's own measure (a joker last);
        else by the score of the hand each leaves."""
        if _racing(view, opened=opened):
            def speed(card: Card) -> tuple[int, int, int, int, Card]:
                rest = without(hand, card)
                return (card.is_joker, deadwood_cards(view, rest), partners(card, rest),
                        -_value(card), card)
            return sorted({c for c in hand if c != view.kept}, key=speed)
        if view.allows("meld"):
            costs, cards = GreedyBot()._shed(view, hand, keep=view.kept)
            return [c for _, c in sorted(zip(costs, cards, strict=True))]
        return sorted({c for c in hand if c != view.kept},
                      key=lambda c: (score(without(hand, c)), -_value(c), c))

    def _guarded(self, view: View, order: list[Card], lay: Lay | None, until: float) -> Card:
        """R51: greedy's discard, unless the next seat has opened and may take it (half the
        openings, and most ways out, take the other seat's discard): then, of greedy's first
        few, the first that the hands that seat might hold take least often. Hands are dealt
        in batches until the budget is spent (with ``samples``, that many batches)."""
        part = view.part_as(LayingPart)
        if part.first_cycle or len(order) < 2 or not part.has_opened(view.next_seat):
            return order[0]
        cards = order[:GUARD_CANDIDATES]
        taken, batches = [0.0] * len(cards), 0
        while batches < (self.samples or 1 << 30) and (batches == 0 or time.monotonic() < until):
            shares = chance_taken(view, self.options, cards, self.rng, hands=GUARD_HANDS,
                                  after=lay)
            taken = [t + s for t, s in zip(taken, shares, strict=True)]
            batches += 1
        least = min(taken)
        return next(c for c, t in zip(cards, taken, strict=True)
                    if t <= least + GUARD_MARGIN * batches)

    def _deadline(self, view: View) -> float:
        """When to stop thinking: the budget (unless a number of samples is fixed), or a
        share of the clock if that is shorter."""
        share = SAFE_SHARE * self.clock_s[view.decision]
        return time.monotonic() + (share if self.samples else min(self.budget_s, share))

    def _scorer(self, view: View, *, opened: bool) -> Score:
        """What a hand is worth to this seat: its penalty where the round scores an
        arrangement (IND, TT); where cards are laid (R51, MAR), what laying cannot shed
        (jokers placed by the solver), or before this seat has opened, what the opening
        still lacks (the value outside combinations does not count yet: scored, it made
        search shed the high cards an opening needs, and lose to greedy). In MAR Tallaj,
        before this seat lays, a round is a race to lay the whole hand first (half the
        rounds between greedy bots end in a 200-point rami sec, MAR-15): there a hand is
        worth its cards outside combinations first, their value second."""
        if not view.allows("meld"):  # IND's penalty is flat (80) until a pure sequence
            return lambda hand: hand_points(view, hand) + deadwood_points(view, hand)
        part = view.part_as(LayingPart)
        need = 0 if opened or part.threshold is None else part.threshold
        rules = part.rules
        if _racing(view, opened=opened):
            return lambda hand: RACE_CARD * deadwood_cards(view, hand) \
                + deadwood_points(view, hand)
        value = rules.hand_value
        # a joker joins any combination, but counts nothing in a MAR or Rummy 71 opening
        joker = 0 if rules.franc or rules.joker_free_opening else JOKER_WORTH

        def laying(hand: Sequence[Card]) -> int:
            if not need:  # opened (MAR Simple: from the start): the solver places the jokers
                return deadwood_points(view, hand)
            natural = [c for c in hand if not c.is_joker]
            melded = sum(map(value, natural)) - deadwood_points(view, natural)
            return max(0, need - melded - joker * (len(hand) - len(natural)))
        return laying


def _play_forward(choice: Choice, draws: Sequence[Card], score: Score,
                  is_wild: Callable[[Card], bool]) -> float:
    """Draw each card in turn and shed as greedy would, but only among the drawn card and
    the few cards likeliest to go (a card that joins nothing is shed unscored); the hand's
    score at the end, or less than 0 if it could go out on the way (sooner is better)."""
    hand, now = choice.hand, choice.score
    for step, card in enumerate(draws):
        if not is_wild(card) and not partners(card, hand):
            continue
        best, shed = now, card
        for old in hand[:SHED_OPTIONS]:
            kept = without(hand, old)
            kept.append(card)
            points = score(kept)
            if points < best:
                best, shed, new = points, old, kept
        if shed is not card:
            hand, now = new, best
        if now == 0:
            return -OUT_BONUS * (len(draws) - step)
    return now


def _guards(view: View) -> bool:
    """Whether this is R51, where search plays greedy guarded against feeding the next seat
    (a seat that has not opened pays a flat 100, R51-16)."""
    part = view.part
    return isinstance(part, LayingPart) and part.rules.never_opened_pays is not None


def _racing(view: View, *, opened: bool) -> bool:
    """Whether this seat races to be rid of its cards, where speed is worth more than
    value: in MAR Tallaj before it has laid anything (a rami sec pays, MAR-15); in R51 once
    it has opened while no opponent has (each of them pays a flat 100 if it goes out first,
    R51-16, and such a loss all but decides a game)."""
    part = view.part
    if not isinstance(part, LayingPart):
        return False
    if part.rules.rami_sec_pays is not None:
        return not opened
    return part.rules.never_opened_pays is not None and opened \
        and not any(part.has_opened(seat) for seat in _opponents(view, part))


def _opponents(view: View, part: LayingPart) -> list[int]:
    """The active seats playing against this one (R51-1: not its partner)."""
    mate = part.rules.partner(view.seat)
    return [seat for seat in range(view.players)
            if seat not in (view.seat, mate) and view.active[seat]]


def _shed_order(hand: Sequence[Card], score: Score) -> list[Card]:
    """The hand, the card whose loss scores best first: the order a rollout sheds in."""
    return sorted(hand, key=lambda c: (c.is_joker, score(without(hand, c)), -_value(c), c))


def _in_order(hand: Sequence[Card], order: Sequence[Card]) -> list[Card]:
    """``hand`` listed in ``order`` (a card not in it, such as one kept from the discard,
    goes last)."""
    place = {c: i for i, c in enumerate(order)}
    return sorted(hand, key=lambda c: place.get(c, len(order)))


def _feeds(view: View, card: Card | None) -> bool:
    """Whether discarding ``card`` hands another seat a card it can use: one that extends a
    combination on the table once someone else has opened (R51, MAR), or one that joins a
    card another seat took from the discard pile this round."""
    if card is None or card.is_joker:
        return False
    part = view.part
    others_opened = isinstance(part, LayingPart) and any(
        part.has_opened(s) for s in range(view.players) if s != view.seat)
    if others_opened and any(_extends(m.cards, m.stands_for, card) for m in view.table):
        return True
    taken = [c for e in view.history if e.kind == "take" and e.seat != view.seat
             for c in e.cards]
    return partners(card, taken) > 0


def _extends(cards: Sequence[Card], stands_for: Sequence[Card | None], card: Card) -> bool:
    """Whether ``card`` would lengthen this run or complete this set (by its natural cards
    and what its wild cards stand for)."""
    named = [s if s is not None else c for c, s in zip(cards, stands_for, strict=True)]
    named = [c for c in named if not c.is_joker]
    if not named:
        return False
    if all(c.rank == named[0].rank for c in named):
        return card.rank == named[0].rank and card.suit not in {c.suit for c in named} \
            and len(named) < 4
    if card.suit != named[0].suit:
        return False
    ranks = sorted(c.rank for c in named)
    high = ranks[-1] + 1 if ranks[-1] < 13 else 14
    return card.rank in (ranks[0] - 1, high % 14 or 1)


def _number(x: object) -> bool:
    """Whether a parameter is a number (a config's ``budget_ms: fast`` or ``true`` is not)."""
    return isinstance(x, int | float) and not isinstance(x, bool)


def _whole(x: object) -> bool:
    """Whether a parameter is a whole number (``depth: 1.5`` is not)."""
    return _number(x) and isinstance(x, int)


def _value(card: Card) -> int:
    """A card's face value (ace 10), to shed the costlier of two equal choices."""
    return 10 if card.rank == 1 or card.is_joker else min(card.rank, 10)


def _worth(hand: Sequence[Card]) -> int:
    """What a hand's cards are worth at face value: of two equal hands, keep the cheaper."""
    return sum(map(_value, hand))


def _opened(view: View) -> bool:
    part = view.part
    return isinstance(part, LayingPart) and part.has_opened(view.seat)


def _must_lay_taken(view: View) -> bool:
    return view.part_as(LayingPart).rules.must_lay_taken
