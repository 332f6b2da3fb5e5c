"""A person at the table: the `human` seat of `arena play`. Each decision shows the seat's
own view (its hand sorted and grouped, the discard top, the table, what others did since)
and reads an answer in the protocol's action text; a refused answer gets its one-line
reason and the question again, and `hint` shows what the built-in advice would play."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence

from rich.console import Console

from arena.actions import PLAY_FORMS, Action, Draw, parse_action
from arena.advice import going_out_card
from arena.cards import Card
from arena.cli import show
from arena.cli.common import Quit
from arena.engine.view import PublicEvent, RoundSummary, View
from arena.errors import ArenaError
from arena.referee import Referee
from arena.seats.bot import BUILTIN_BOTS, GameInfo, load_class
from arena.seats.seat import Answer
from arena.variants import find_variant

HUMAN = "human"  # the bot name that seats a person
Check = Callable[[Action], str | None]  # why an action is refused now, or None

LONGEST = 500  # characters of an answer: a whole hand laid at once is under 200
TYPED = {"declare": "declare CARD", "meld": "meld CARDS", "lay_off": "lay N CARDS",
         "take_back": "take N CARD"}  # a play as it is typed, for the prompt


def help_text(view: View) -> str:
    """The answers this game takes, from the view: Indian Rummy's help spoke of the
    tournante and of laying, which it has not, and of a 'legal' command there is not."""
    draws = " or ".join(view.legal_draws) if view.decision == "draw" else "stock or discard"
    plays = ["'discard KS'"]
    if "declare" in view.plays:
        plays.append("'declare 8D' (going out, 8D the last card discarded or set aside)")
    if "meld" in view.plays or "lay_off" in view.plays:
        plays.append("'meld 9H 10H JK=JH; lay 3 8H; discard KS' (lay N adds to the table's "
                     "combination N)")
    if "take_back" in view.plays:
        plays.append("'take 2 5S; discard KS' (5S from your hand takes back the joker of "
                     "combination 2 that stands for it, shown JK=5S)")
    return (f"answers: a draw is {draws}; a play is {', or '.join(plays)}; 'hint' asks the "
            "built-in advice, 'quit' (or Ctrl-D) stops")


class HumanSeat:
    """A seat whose answers a person types; clocked only when asked (``clocked``)."""

    def __init__(self, out: Console, *, clocked: bool = False,
                 read: Callable[[str], str] = input) -> None:
        self.out = out
        self.clocked = clocked
        self.read = read
        self.check: Check = lambda action: None
        self.last_history: Callable[[], tuple[PublicEvent, ...]] = tuple  # the ended round's
        self.warned: Action | None = None  # an answer that gets a remedy, once told so
        self.going_ahead = ""  # what that answer, sent again, does
        self.seen = 0  # public events of the round already shown
        self.round = 0
        self.seat = 0
        self.start_error = ""  # a person always starts
        self.jokerless = False  # a game without jokers: JK, always in the wire's wild list,
        # is not shown as a wild card the person could hold

    def bind(self, referee: Referee) -> None:
        """Refuse answers the referee would: each is tried on a copy of its game first."""
        def check(action: Action) -> str | None:
            trial = copy.deepcopy(referee.game)
            try:
                remedy = trial.apply(action)
            except ArenaError as exc:
                return str(exc)
            if remedy is None:
                return None
            rule, taken = remedy.partition(":")[0], referee.game.turn.drawn
            if action == self.warned:  # going ahead: said as it happens, not only in the
                # faults column at the end
                self.going_ahead = (f"{rule}: {taken} goes back on the pile and you draw the "
                                    "top stock card instead (a fault); then you play again")
                return None
            self.warned = action  # R51-9, MAR-8: said once; the same answer again goes ahead
            return (f"{rule}: the taken discard {taken} must be laid this turn, else it goes "
                    "back on the pile, the top stock card is drawn in its place and that "
                    "counts as a fault; lay it, or send the same answer again to go ahead")
        self.check = check
        self.last_history = lambda: referee.game.last_history

    # ---------------------------------------------------------------- the seat interface

    def launch(self) -> None:
        """A person needs no process."""

    def begin(self, info: GameInfo) -> str | None:
        self.seat = info.seat
        self.jokerless = info.options.get("jokers") == 0  # TT-2's default: no JK to show
        self.out.print(f"you are seat {info.seat} of {info.players} at {info.variant}"
                       f"{_partner(info)}; type 'help' for how to answer")
        return None

    def ready(self) -> str | None:
        return None

    def ask(self, view: View, limit_ms: int) -> Answer:
        """Show the view, then read answers until one is accepted."""
        self._show(view)
        self.warned = None
        start = time.monotonic()
        while True:
            text = self._prompt(view, limit_ms)
            told = self._told(view, text)
            if told is not None:
                self.out.print(f"  {show.plain(told)}")
                continue
            why = self._refusal(view, text)
            if why is None:
                break
            self.out.print(f"  [yellow]refused:[/yellow] {show.plain(why)}")
        if self.going_ahead:
            self.out.print(f"  {show.plain(self.going_ahead)}")
            self.going_ahead = ""
        elapsed = (time.monotonic() - start) * 1000
        if self.clocked and elapsed > limit_ms:
            self.out.print(f"  too late ({elapsed / 1000:.0f} s, the clock gave "
                           f"{limit_ms / 1000:.0f} s): the safe action is played")
            return Answer(None, "timeout", elapsed)
        return Answer(text, None, elapsed)

    def notify(self, hook: str, arg: RoundSummary | tuple[int, ...]) -> str | None:
        """The end of a round shows every hand (COM-5); the end of the game the totals."""
        if isinstance(arg, RoundSummary):
            self._last_turns(arg.round, self.last_history())
            self.out.print(show.plain(show.round_end(arg)))
            for i, hand in enumerate(arg.hands):
                mark = " (you)" if i == self.seat else ""
                self.out.print(f"  seat {i}{mark}: {show.hand(hand)}")
        else:
            self.out.print(f"game over: totals {list(arg)}")
        return None

    def ended(self, deadline: float) -> str | None:
        return None

    def stop(self) -> None:
        """Nothing runs on."""

    def close(self) -> None:
        """Nothing to release."""

    # ---------------------------------------------------------------- the screen

    def _show(self, view: View) -> None:
        if view.round != self.round:
            self.round, self.seen = view.round, 0
            wild = show.cards(sorted({Card(c) for c in view.wilds.wild
                                      if not (self.jokerless and Card(c).is_joker)},
                                     key=lambda c: c.code))
            self.out.print(f"round {view.round}, dealer {view.dealer}"
                           f"{show.plain(view.part.headline() if view.part else '')}; "
                           f"wild: {wild}")
        news = view.history[self.seen:]
        self.seen = len(view.history)
        for event in news:
            if event.seat != view.seat:
                self.out.print(f"  {_event_text(event)}")
        sizes = ", ".join(f"{i}: {n}" for i, n in enumerate(view.hand_sizes) if i != view.seat)
        self.out.print(f"  discard top {show.card(view.discard_top)}, stock "
                       f"{view.stock_size}, totals {list(view.scores)}, hands {sizes}")
        status = view.part.status() if view.part else ""
        if status:
            self.out.print(f"  {show.plain(status)}")
        if view.table:
            self.out.print(f"  table: {show.melds(view.table)}")
        drawn = f" (drew {show.card(view.drawn)})" if view.drawn is not None else ""
        self.out.print(f"  your hand: {show.hand(view.hand)}{drawn}")

    def _last_turns(self, round: int, history: Sequence[PublicEvent]) -> None:
        """What the others did since this seat's last decision: the turn that ended the
        round was in no view."""
        start = self.seen if round == self.round else 0
        for event in history[start:]:
            if event.seat != self.seat:
                self.out.print(f"  {_event_text(event)}")
        self.seen = len(history)

    def _prompt(self, view: View, limit_ms: int) -> str:
        legal = ", ".join(view.legal_draws) if view.decision == "draw" else \
            ", ".join(_forms(view))
        clock = f", {limit_ms / 1000:.0f} s" if self.clocked else ""
        try:
            return self.read(f"{view.decision} ({legal}{clock})> ").strip()
        except EOFError:
            raise KeyboardInterrupt from None  # input ended: the game stops, as on Ctrl-C

    def _told(self, view: View, text: str) -> str | None:
        """The answer to a question rather than a move: help, a hint; quit stops."""
        word = text.lower()
        if word == "quit":
            raise Quit
        if word in ("help", "?", ""):
            return help_text(view)
        return f"hint: {hint(view)}" if word == "hint" else None

    def _refusal(self, view: View, text: str) -> str | None:
        """Why ``text`` is not an answer now (the rule it breaks), or None."""
        if len(text) > LONGEST:  # echoed whole, a pasted page filled the screen
            return f"an answer of {len(text):,} characters: expected a move of a few words"
        not_a_draw = f"{text!r} is not a draw: expected {' or '.join(view.legal_draws)}"
        try:
            action = parse_action(text)
        except (ArenaError, ValueError) as exc:  # the forms this game takes, not every one
            return not_a_draw if view.decision == "draw" else \
                str(exc).replace(PLAY_FORMS, _play_forms(view))
        if view.decision == "draw" and not isinstance(action, Draw):
            return not_a_draw
        why = self.check(action)
        if why is not None and view.decision == "play" and isinstance(action, Draw) and \
                action != self.warned:  # (a stock draw may be the R51-9 remedy) "discard"
            # alone, read as the draw from the pile, was refused as "a play is expected"
            return f"{text!r} alone is a draw; now a play: expected {_play_forms(view)}"
        return why


def _forms(view: View) -> list[str]:
    """The plays this game takes now, as they are typed."""
    return ["discard CARD", *(TYPED.get(p, p) for p in sorted(view.plays))]


def _play_forms(view: View) -> str:
    """``'discard CARD' or 'declare CARD'``: a refusal's list of what this game takes."""
    forms = [f"'{f}'" for f in _forms(view)]
    return " or ".join(forms) if len(forms) < 3 else \
        f"{', '.join(forms[:-1])} or {forms[-1]}"


def _partner(info: GameInfo) -> str:
    """Who plays with the person in a team game (R51-1), and that totals are the team's."""
    labels = find_variant(info.variant).team_labels(info.options)
    if labels is None:
        return ""
    partners = [i for i, t in enumerate(labels) if t == labels[info.seat] and i != info.seat]
    return (f", in a team with seat {', '.join(map(str, partners))} (R51-1: a team's seats "
            "share its total)")


def hint(view: View) -> str:
    """What the built-in advice suggests now: the greedy bot's answer, and a declaration
    where one is possible."""
    bot = load_class(BUILTIN_BOTS["greedy"])()
    answer = bot.draw(view) if view.decision == "draw" else bot.play(view)
    out = going_out_card(view) if view.decision == "play" else None
    extra = f" (you can go out with {out})" if out is not None else ""
    return f"{answer}{extra}"


def _event_text(event: PublicEvent) -> str:
    """One public event in words (COM-5: what every seat saw happen)."""
    seat, cards = f"seat {event.seat}", show.cards(event.cards)
    if event.kind == "take_back":  # (the card put down, the joker taken)
        return f"{seat} put down {show.card(event.cards[0])} and took back the joker"
    return {"discard": f"{seat} discarded {cards}",
            "take": f"{seat} took {cards} from the discard pile",
            "declare": f"{seat} declared: {cards}",
            "invalid": f"{seat} declared, invalidly: {cards}",
            "out": f"{seat} went out: {cards}",
            "meld": f"{seat} laid {cards}",
            "lay": f"{seat} added {cards} to the table",
            "return": f"{seat} put {cards} back on the discard pile and drew from the stock",
            }.get(event.kind, f"{seat} {event.kind}: {cards}")
