"""The turn Rummy 51 (R51) and Moroccan rummy (MAR) both play: draw, lay, discard, with the
remedy for a taken discard that is not laid. Both variants are this game with different
data: a :class:`LayingRules` value says what a first lay-down needs, who may add to the
table and what cards pay."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.actions import Action, Draw, Lay, Placed, Play, Source, TakeBack
from arena.cards import Card
from arena.engine.game import Game, HandReport, MeldReport, OpeningReport, check_discard_type
from arena.engine.melds import NO_WILDS
from arena.engine.options import resolve_options
from arena.engine.results import RoundEnd
from arena.engine.rules import LayingRules
from arena.engine.solver import min_deadwood
from arena.engine.view import PlayKind, PublicEvent, View
from arena.errors import BadInput, IllegalAction
from arena.variants.laying import advice
from arena.variants.laying.hand import placed_meld, whole_hand
from arena.variants.laying.opening import going_out_refusal, meld_answer, opening_answer
from arena.variants.laying.play import (
    Laid,
    check_rights,
    lay_cards,
)
from arena.variants.laying.table import build_meld, is_set
from arena.variants.laying.view import LayingPart

EVERY_LAY: frozenset[PlayKind] = frozenset({"meld", "lay_off", "take_back"})
WHOLE_HAND_ONLY: frozenset[PlayKind] = frozenset({"meld"})  # MAR-13

class LayingGame(Game):
    """The turn of a laying variant: draw, lay (new combinations, additions, take-backs),
    discard; the first lay-down rules, the remedy of R51-9 / MAR-8 and scoring by hand."""

    first_cycle_rule: ClassVar[str]
    view_part = LayingPart

    @classmethod
    def laying_rules(cls, options: Mapping[str, Any]) -> LayingRules:
        """The rules value for resolved options (variant hook)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ round

    def start_laying(self) -> None:
        """After the deal: the dealer starts with his play decision, having no draw."""
        self.rules = self.laying_rules(self.options)
        self.wilds = NO_WILDS
        self.values = self.rules.values()
        self.opened = [False] * self.players
        self.laid = [False] * self.players
        self.best_opening = 0
        self.first_cycle = True
        self.tournante: Card | None = None
        self.accepted: tuple[Play, tuple[Laid, int | None]] | None = None  # check_play's
        self.to_act, self.decision = self.dealer, "play"

    def partner(self, seat: int) -> int | None:
        """R51-1: the seat opposite in team play."""
        return self.rules.partner(seat)

    def is_opened(self, seat: int) -> bool:
        """Opened himself, or (R51-12) treated as opened because his partner has."""
        mate = self.partner(seat)
        return self.opened[seat] or (mate is not None and self.opened[mate])

    def threshold(self) -> int | None:
        """R51-11, MAR-10: the base, or one more than the best first lay-down so far."""
        base = self.rules.opening
        return None if base is None else max(base, self.best_opening + 1)

    def next_seat(self) -> None:
        super().next_seat()
        if self.first_cycle and self.to_act == self.dealer:
            self.end_first_cycle()

    def end_first_cycle(self) -> None:
        """R51-8 (d), MAR-5: the turn is back with the dealer."""
        self.first_cycle = False

    # ------------------------------------------------------------------ draw

    def legal_draws(self) -> tuple[Source, ...]:
        if self.first_cycle:
            return ("stock", "tournante") if self._tournante_open() else ("stock",)
        top = self.pile[-1] if self.pile else None
        if top is None or len(self.hands[self.to_act]) < 2 or (top.is_joker
                                                                and not self.rules.take_joker):
            return ("stock",)
        return ("stock",) if self.all_copies_of_top() else ("stock", "discard")

    def _tournante_open(self) -> bool:
        """R51-8 (b): a tournante may be taken, unless it is a joker (a discarded joker)."""
        card = self.tournante
        return card is not None and not (card.is_joker and not self.rules.take_joker)

    def draw_refused(self, source: Source) -> IllegalAction:
        rules = self.rules
        if source == "tournante" and self.first_cycle and self.tournante is not None:
            return IllegalAction("a joker tournante can never be taken: it is a discarded "
                                 "joker", rule=self.first_cycle_rule)
        if source == "tournante":
            return IllegalAction("the tournante is taken only in the first cycle, once"
                                 if rules.prefix == "R51" else "this variant has no tournante",
                                 rule=self.first_cycle_rule)
        if self.first_cycle:
            return IllegalAction("nobody takes the discard in the first cycle",
                                 rule=rules.rule("cycle"))
        if not self.pile:
            return IllegalAction("the discard pile is empty", rule=rules.rule("take"))
        if len(self.hands[self.to_act]) < 2:
            return IllegalAction("a player who holds one card draws from the stock",
                                 rule=rules.rule("one_card"))
        if source == "discard" and self.all_copies_of_top():
            return super().draw_refused(source)
        return IllegalAction("a discarded joker can never be taken", rule=rules.rule("take"))

    def take_from(self, source: Source) -> Card:
        if source == "tournante":
            card, self.tournante = self.tournante, None
            assert card is not None
            return card
        return self.pile.pop()

    # ------------------------------------------------------------------ the remedy

    def apply(self, action: Action) -> str | None:
        """As :meth:`Game.apply`, except that a play that does not lay a discard it had to lay
        gets the remedy instead (R51-9, MAR-8): the card goes back, the stock is drawn, and the
        seat is asked again; the remedy is returned. It is logged as the ``stock`` draw it
        amounts to."""
        if isinstance(action, Play):  # before the remedy, which text would have had
            check_discard_type(action)
        if self.finished or not self.remedy_due(action):
            return super().apply(action)
        seat, card = self.to_act, self.turn.drawn
        assert card is not None
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.history.append(PublicEvent(seat, "return", (card,)))
        self.draws -= 1  # COM-9: an undone take does not count; the stock draw does
        self.decision = "draw"
        super().apply(Draw("stock"))
        return (f"{self.rules.rule('take')}: the taken discard {card} was not laid: it goes "
                "back on the pile and the top stock card is drawn instead")

    def remedy_due(self, action: Action) -> bool:
        """A discard taken this turn that must be laid, and an answer that does not lay it
        (or asks for the stock instead)."""
        if self.decision != "play" or self.turn.source != "discard" \
                or not self.rules.must_lay_taken:
            return False
        if isinstance(action, Draw):
            return action.source == "stock"
        return isinstance(action, Play) and self.turn.drawn not in action.placed

    # ------------------------------------------------------------------ play

    def check_play(self, seat: int, play: Play) -> None:
        if not self.remedy_due(play):  # kept for apply_play: a play is checked once
            self.accepted = (play, self.checked(seat, play))

    def checked(self, seat: int, play: Play) -> tuple[Laid, int | None]:
        """The play's lays made on copies, and the opening count if they open; or raise."""
        rules = self.rules
        if play.declare:
            raise IllegalAction("there is no declaration here: lay the cards, then discard "
                                "the last one", rule=rules.rule("turn"))
        may_lay = rules.lay_in_first_cycle or not self.first_cycle
        if play.lays_anything and not may_lay:
            raise IllegalAction("nothing is laid in the first cycle, not even a whole hand",
                                rule=rules.rule("cycle"))
        laid = lay_cards(self.hands[seat], self.table, play, rules, seat=seat)
        count = check_rights(laid, play, rules, opened=self.is_opened(seat), may_lay=may_lay,
                             threshold=self.threshold())
        card = play.discard
        if card is None:
            raise IllegalAction("the play must end with a discard", rule=rules.rule("turn"))
        if card not in laid.hand:
            why = ("is not in the hand after laying; a card must be left for the discard"
                   if play.lays_anything else "is not in the hand")
            raise IllegalAction(f"{card} {why}", rule=rules.rule("turn"))
        if self.turn.source in ("discard", "tournante") and card == self.turn.drawn:
            raise IllegalAction(f"{card} was taken from the {self.turn.source} this turn and "
                                "may not be discarded", rule="COM-11")
        return laid, count

    def apply_play(self, seat: int, play: Play) -> None:
        accepted, self.accepted = self.accepted, None
        laid, count = accepted[1] if accepted is not None and accepted[0] is play \
            else self.checked(seat, play)
        assert play.discard is not None
        sec = play.lays_anything and self.rami_sec(seat)
        self.table, self.hands[seat] = list(laid.table), list(laid.hand)
        self.history += laid.events
        self.laid[seat] = self.laid[seat] or play.lays_anything
        if count is not None:
            self.opened[seat] = True
            self.best_opening = max(self.best_opening, count)
        self.discard(seat, play.discard)
        if self.hands[seat]:
            self.end_turn()
        else:  # R51-15, MAR-14: the last card is discarded
            self.end_round(RoundEnd.RAMI_SEC if sec else RoundEnd.OUT,
                           self.out_penalties(seat, rami_sec=sec))

    def rami_sec(self, seat: int) -> bool:
        """R51-14: he had laid nothing before this turn (MAR-15 narrows it)."""
        return not self.laid[seat]

    # ------------------------------------------------------------------ scoring

    def card_value(self, card: Card) -> int:
        return self.values[card.code]

    def hand_points(self, hand: Sequence[Card]) -> int:
        """Every card left in hand is charged (COM-7), as for a player who has opened."""
        return sum(self.values[c.code] for c in hand)

    def penalty(self, seat: int) -> int:
        """R51-16, MAR-16: the hand's cards, or R51's flat charge for a seat never opened."""
        flat = self.rules.never_opened_pays
        if flat is not None and not self.is_opened(seat):
            return flat
        return self.hand_points(self.hands[seat])

    def out_penalties(self, winner: int, *, rami_sec: bool) -> list[int]:
        """What each seat pays when ``winner`` has gone out."""
        sec = self.rules.rami_sec_pays if rami_sec else None
        own = [0 if s == winner else sec if sec is not None else self.penalty(s)
               for s in range(self.players)]
        return self.by_team(own, winner)

    def forced_end(self, reason: RoundEnd) -> None:
        """R51-21, MAR-19: nobody has won; every seat pays (R51-16, MAR-16)."""
        self.end_round(reason, self.by_team([self.penalty(s) for s in range(self.players)],
                                            None))

    def by_team(self, own: list[int], winner: int | None) -> list[int]:
        """R51-17: partners both carry their team's sum; the winner's team pays 0."""
        mates = [self.partner(s) for s in range(self.players)]
        return [own[s] if m is None else 0 if winner in (s, m) else own[s] + own[m]
                for s, m in enumerate(mates)]

    # ------------------------------------------------------------------ views

    def play_kinds(self) -> frozenset[PlayKind]:
        """New combinations, additions and take-backs; MAR-13's Simple lays the whole hand only."""
        return WHOLE_HAND_ONLY if self.rules.opening is None else EVERY_LAY

    def part_for(self, seat: int) -> LayingPart:
        return LayingPart(opened=tuple(self.is_opened(s) for s in range(self.players)),
                          threshold=self.threshold(), tournante=self.tournante,
                          first_cycle=self.first_cycle, rules=self.rules)

    def all_cards(self) -> list[Card]:
        """Every card of the round: hands, stock, pile, table and the tournante."""
        out = [c for h in self.hands for c in h] + self.stock + self.pile
        out += [c for m in self.table for c in m.cards]
        return out + ([self.tournante] if self.tournante is not None else [])

    # ------------------------------------------------------------------ calculators

    @classmethod
    def hand_report(cls, cards: Sequence[Card], *, wild: Card | None, round: int | None,
                    options: Mapping[str, Any]) -> HandReport:
        """Every card in hand pays (COM-7), so ``points`` is the whole hand as if opened;
        ``valid_declaration``: the cards but one can be laid at once by a player who has not
        opened (going out). The melds are the ones going out lays, its discard the deadwood;
        for a hand that cannot go out, a best split, for information."""
        rules = cls._calculator_rules(wild, round, options)
        values = rules.values()
        points = sum(values[c.code] for c in cards)
        out = whole_hand(cards, rules)
        if out is not None:
            return HandReport(variant=cls.version, cards=tuple(cards), wild=None,
                              melds=out[0], deadwood=(out[1],), points=points,
                              valid_declaration=True,
                              named=tuple(_as_laid(m.cards, rules) for m in out[0]))
        best = min_deadwood(cards, rules.melds, NO_WILDS, values)
        assert best is not None
        return HandReport(variant=cls.version, cards=tuple(cards), wild=None, melds=best.melds,
                          deadwood=best.deadwood, points=points, valid_declaration=False,
                          reason=going_out_refusal(cards, rules))

    @classmethod
    def view_sample(cls, view: View, options: Mapping[str, Any], unseen: Counter[Card],
                    held: Mapping[int, Counter[Card]], pile: list[Card], rng: random.Random
                    ) -> LayingGame:
        """The engine's state of ``view`` and this family's: who has opened (and so laid),
        the level an opening needs, the first cycle and its tournante."""
        game = cls(seed=rng.getrandbits(32), options=options)
        game.restore(view, unseen, held, pile, rng)
        part = view.part_as(LayingPart)
        game.opened = list(part.opened)
        game.laid = [part.opened[s] or any(e.seat == s and e.kind in ("meld", "lay")
                                           for e in view.history) for s in range(view.players)]
        base = game.rules.opening
        game.best_opening = 0 if base is None or part.threshold is None \
            or part.threshold <= base else part.threshold - 1
        game.first_cycle, game.tournante = part.first_cycle, part.tournante
        return game

    @classmethod
    def view_lay(cls, view: View, *, taking: Card | None = None) -> Lay | None:
        return advice.suggest_lay(view, taking=taking)

    @classmethod
    def view_deadwood(cls, view: View, hand: Sequence[Card]) -> int:
        return advice.deadwood_points(view, hand)

    @classmethod
    def view_deadwood_cards(cls, view: View, hand: Sequence[Card]) -> int:
        return advice.deadwood_cards(view, hand)

    @classmethod
    def view_chance_taken(cls, view: View, unseen: Counter[Card],
                          held: Mapping[int, Counter[Card]],
                          cards: Sequence[Card], rng: random.Random, hands: int,
                          after: Lay | None) -> list[float]:
        return advice.chance_taken(view, unseen, held, cards, rng, hands, after)

    @classmethod
    def view_points(cls, view: View, hand: Sequence[Card]) -> int:
        """R51-16, MAR-16: every card left pays, or R51's flat 100 for a seat not opened;
        going out lays the cards, so :meth:`view_going_out` stays None (see suggest_lay)."""
        part = view.part_as(LayingPart)
        flat = part.rules.never_opened_pays
        if flat is not None and not part.has_opened(view.seat):
            return flat
        return sum(map(part.rules.hand_value, hand))

    @classmethod
    def meld_report(cls, cards: Sequence[Card | Placed], *, wild: Card | None,
                    round: int | None, options: Mapping[str, Any]) -> MeldReport:
        """One combination: ``pure_sequence`` is a run without a joker (a MAR franc suite);
        its points are what it counts toward an opening (R51-10, MAR-9)."""
        placed = [c if isinstance(c, Placed) else Placed(c) for c in cards]
        return meld_answer(placed, cls._calculator_rules(wild, round, options))

    @classmethod
    def opening_report(cls, melds: Sequence[Sequence[Placed]], *, level: int | None,
                       options: Mapping[str, Any], table: Sequence[Sequence[Placed]] = (),
                       takebacks: Sequence[TakeBack] = ()) -> OpeningReport:
        """R51-10, R51-11, R51-19, MAR-9, MAR-10: checked by the referee's own code, on no
        more copies of a card than the deck holds."""
        return opening_answer(melds, cls._calculator_rules(None, None, options),
                              variant=cls.version, level=level, table=table,
                              takebacks=takebacks, held=cls.deck_counts(options))

    @classmethod
    def _calculator_rules(cls, wild: Card | None, round: int | None,
                          options: Mapping[str, Any]) -> LayingRules:
        if wild is not None or round is not None:
            raise BadInput(f"{cls.name}: --wild and --round do not apply: the printed jokers "
                           "are the only wild cards")
        return cls.laying_rules(resolve_options(cls.name, cls.OPTIONS, options))


def _as_laid(cards: Sequence[Card], rules: LayingRules) -> tuple[str, ...]:
    """A going-out combination as a lay writes it: in order (a run by rank, the ace high
    after a king; a set's joker last), its joker named where two cards fit (COM-15)."""
    placed = placed_meld(cards, rules)
    laid = build_meld(placed, rules, owner=0)
    named = any(p.stands_for is not None for p in placed)
    shown = [Placed(c, s if named else None) for c, s in zip(laid.cards, laid.stands_for,
                                                             strict=True)]
    if is_set([s or c for c, s in zip(laid.cards, laid.stands_for, strict=True)]):
        shown.sort(key=lambda p: p.card.is_joker)
    return tuple(map(str, shown))
