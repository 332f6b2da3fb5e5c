"""Cards in text (COM-1): forgiving parsing, canonical printing, decks, pickling."""

from __future__ import annotations

import pickle
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import (
    ALL_CARDS,
    RANKS,
    SUITS,
    Card,
    check_in_deck,
    deck,
    format_cards,
    parse_cards,
    shuffled,
)
from arena.errors import BadInput

EVERY_CARD = [*ALL_CARDS, Card.JOKER]
PROPERTY = settings(max_examples=300, derandomize=True, database=None, deadline=None)

_UNICODE_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@pytest.mark.parametrize("text", ["10H", "TH", "th", "10♥", "10h", " 10H ", "T♥", "10♡"])
def test_com_1_forgiving_parse_ten_of_hearts(text: str) -> None:
    assert Card.parse(text) == Card.of(10, 1)


@pytest.mark.parametrize("text", ["JK", "jk", "Jk", "JOKER", "joker"])
def test_com_1_printed_joker(text: str) -> None:
    card = Card.parse(text)
    assert card == Card.JOKER and card.is_joker and (card.rank, card.suit) == (0, 4)


@pytest.mark.parametrize(("text", "rank", "suit"), [
    ("AS", 1, 0), ("as", 1, 0), ("2H", 2, 1), ("9d", 9, 2), ("JC", 11, 3), ("qs", 12, 0),
    ("K♣", 13, 3), ("A♦", 1, 2),
])
def test_com_1_ranks_and_suits(text: str, rank: int, suit: int) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit) and card == Card.of(rank, suit)


def test_com_1_canonical_printing() -> None:
    assert str(Card.parse("th")) == "10H"
    assert str(Card.parse("a♠")) == "AS"
    assert str(Card.parse("joker")) == "JK"
    assert repr(Card.parse("10♥")) == "Card.parse('10H')"
    assert format_cards(parse_cards("as, 2s,th jk")) == "AS 2S 10H JK"


def test_com_1_colours() -> None:
    assert [c.is_red for c in parse_cards("AS AH AD AC")] == [False, True, True, False]
    assert not Card.JOKER.is_red


def test_com_1_two_copies_are_equal() -> None:
    first, second = deck(decks=2)[0], deck(decks=2)[52]
    assert first == second and hash(first) == hash(second)
    assert Card(first.code) == first


@pytest.mark.parametrize("text", ["ZZ", "11H", "10X", "H", "", "  ", "10", "KK", "JKR", "0S",
                                  "1D", "1s", "0H", "11S", "14C", "1♠"])
def test_bad_card_names_the_token(text: str) -> None:
    with pytest.raises(BadInput) as err:
        Card.parse(text)
    assert repr(text) in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(("text", "part"), [
    ("1D", "'1' is not a rank"), ("1s", "'1' is not a rank"), ("11S", "'11' is not a rank"),
    ("0H", "'0' is not a rank"), ("14C", "'14' is not a rank"), ("QX", "'X' is not a suit"),
    ("10Z", "'Z' is not a suit"),
])
def test_com_1_a_rank_or_a_suit_that_is_not_one_is_named(text: str, part: str) -> None:
    # COM-1: the ace is A; no other spelling of a rank is read as a card.
    with pytest.raises(BadInput) as err:
        Card.parse(text)
    assert str(err.value).startswith(f"bad card {text!r}: {part}: expected rank A 2-10")


def test_bad_card_in_a_list_names_the_token() -> None:
    with pytest.raises(BadInput, match="'QX'"):
        parse_cards("AS QX 3S")


@pytest.mark.parametrize(("jokers", "size"), [(0, 104), (2, 106), (4, 108)])
def test_deck_sizes(jokers: int, size: int) -> None:
    cards = deck(jokers=jokers)
    assert len(cards) == size
    counts = Counter(cards)
    assert counts[Card.JOKER] == jokers
    assert all(counts[c] == 2 for c in ALL_CARDS)


def test_check_in_deck_allows_every_copy_the_deck_holds() -> None:
    two_decks = Counter(deck(decks=2, jokers=2))
    check_in_deck(parse_cards("3S 3S JK JK AS"), two_decks)
    check_in_deck(deck(decks=2, jokers=2), two_decks)
    check_in_deck([], Counter())


@pytest.mark.parametrize(("text", "message"), [
    ("3S 3S 3S 3S 3S", "3S given 5 times: the deck holds 2"),
    ("JK JK JK 2S", "JK given 3 times: the deck holds 2"),
    ("KD 3S KD 3S KD 3S", "3S given 3 times: the deck holds 2"),  # the first card by code
])
def test_check_in_deck_names_the_card_and_the_count_allowed(text: str, message: str) -> None:
    with pytest.raises(BadInput) as err:
        check_in_deck(parse_cards(text), Counter(deck(decks=2, jokers=2)))
    assert str(err.value) == message


def test_check_in_deck_with_no_jokers() -> None:
    with pytest.raises(BadInput, match=r"^JK given once: the deck holds 0$"):
        check_in_deck(parse_cards("2S JK"), Counter(deck(decks=2, jokers=0)))


def test_one_deck() -> None:
    assert Counter(deck(decks=1)) == Counter(ALL_CARDS)


def test_com_4_shuffle_follows_the_seed() -> None:
    cards = deck(jokers=2)
    first = shuffled(cards, random.Random(7))
    assert first == shuffled(cards, random.Random(7))
    assert Counter(first) == Counter(cards) and cards == deck(jokers=2)


@pytest.mark.parametrize("card", EVERY_CARD, ids=str)
def test_pickling_keeps_equality(card: Card) -> None:
    back = pickle.loads(pickle.dumps(card))
    assert back == card and hash(back) == hash(card) and str(back) == str(card)


def test_pickling_a_hand() -> None:
    hand = parse_cards("AS 10H JK 10H")
    assert pickle.loads(pickle.dumps(hand)) == hand


def test_codes_rank_and_suit() -> None:
    assert [c.code for c in EVERY_CARD] == list(range(53))
    assert all(Card.of(c.rank, c.suit) == c for c in ALL_CARDS)
    assert [str(c) for c in ALL_CARDS[:13]] == [r + "S" for r in RANKS]
    assert [str(ALL_CARDS[13 * s]) for s in range(4)] == [f"A{s}" for s in SUITS]


@PROPERTY
@given(st.integers(0, 52))
def test_parse_print_parse_round_trip(code: int) -> None:
    card = EVERY_CARD[code]
    text = str(card)
    assert Card.parse(text) == card
    assert str(Card.parse(text)) == text
    assert eval(repr(card), {"Card": Card}) == card


@st.composite
def spellings(draw: st.DrawFn) -> tuple[int, str]:
    """A card code and one of the ways a person might write the card."""
    code = draw(st.integers(0, 52))
    card = EVERY_CARD[code]
    text = str(card)
    if not card.is_joker:
        rank, suit = text[:-1], text[-1]
        rank = draw(st.sampled_from(["T", "10"])) if rank == "10" else rank
        suit = draw(st.sampled_from([suit, _UNICODE_SUITS[suit]]))
        text = rank + suit
    text = draw(st.sampled_from([text, text.lower()]))
    pad = draw(st.sampled_from(["", " ", "\t"]))
    return code, pad + text + pad


@PROPERTY
@given(spellings())
def test_forgiving_spellings_parse_to_the_card(spelled: tuple[int, str]) -> None:
    code, text = spelled
    assert Card.parse(text).code == code


@PROPERTY
@given(st.lists(st.integers(0, 52), max_size=20))
def test_format_parse_round_trip(codes: list[int]) -> None:
    hand = [EVERY_CARD[c] for c in codes]
    assert parse_cards(format_cards(hand)) == hand
    assert parse_cards(format_cards(hand).split()) == hand


@pytest.mark.parametrize(("rank", "suit"), [(14, 0), (-1, 0), (0, 0), (1, 5)])
def test_a_rank_or_suit_out_of_range_is_no_card(rank: int, suit: int) -> None:
    """Card.of(14, 0) was the ace of hearts and Card.of(0, 0) the joker."""
    with pytest.raises(ValueError, match=f"no card has rank {rank} and suit {suit}"):
        Card.of(rank, suit)


@pytest.mark.parametrize("value", [5, None, ["AS"]])
def test_parse_takes_text_only(value: object) -> None:
    with pytest.raises(BadInput, match="expected text such as 10H or JK"):
        Card.parse(value)  # type: ignore[arg-type]


def test_cards_compare_every_way_by_code() -> None:
    """Only < was defined: <= and > raised TypeError."""
    low, high = Card.parse("2S"), Card.parse("AH")
    assert (low < high, low <= high, high > low, high >= low) == (True, True, True, True)
    assert (low >= high, high <= low, low <= low, low >= low) == (False, False, True, True)
