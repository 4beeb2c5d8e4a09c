"""The hand builder's state: which cards a player placed in back and middle.

A draft is small enough to live in a component's ``custom_id`` (two 52-bit masks, and
whether the rows are Auto-arrange's suggestion as it came), so the builder needs no memory
of its own and keeps working across restarts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from capsa.cards import DECK, CapsaError, Card, DeckStyle, format_cards, sort_hand
from capsa.hands import Row, evaluate, is_fouled
from capsa.i18n import t
from capsa.names import position_name, row_name


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    return tuple(sort_hand(c for c in DECK if mask >> c.index & 1))


DraftState = tuple[int, int, bool]  # back mask, middle mask, arranged


@dataclass(frozen=True)
class Draft:
    hand: tuple[Card, ...]
    back: tuple[Card, ...] = ()
    middle: tuple[Card, ...] = ()
    arranged: bool = False  # the rows are Auto-arrange's, untouched since (the coach asks)

    @classmethod
    def start(cls, hand: Sequence[Card]) -> Draft:
        return cls(tuple(sort_hand(hand)))

    @classmethod
    def decode(
        cls, hand: Sequence[Card], back_mask: int, middle_mask: int, arranged: bool = False
    ) -> Draft:
        """Rebuild a draft from masks, dropping anything not in the hand or clashing."""
        held = mask_of(hand)
        back_mask &= held
        middle_mask &= held & ~back_mask
        draft = cls(tuple(sort_hand(hand)), cards_of(back_mask), cards_of(middle_mask))
        return Draft(draft.hand, draft.back, draft.middle, arranged and draft.complete)

    @property
    def masks(self) -> tuple[int, int]:
        return mask_of(self.back), mask_of(self.middle)

    @property
    def state(self) -> DraftState:
        """What ``decode`` rebuilds the draft from."""
        return (*self.masks, self.arranged)

    @property
    def complete(self) -> bool:
        return len(self.back) == 5 and len(self.middle) == 5

    @property
    def front(self) -> tuple[Card, ...]:
        if not self.complete:
            return ()
        placed = set(self.back) | set(self.middle)
        return tuple(c for c in self.hand if c not in placed)

    @property
    def setting(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        return self.back, self.middle, self.front

    def rows(self) -> tuple[Row | None, Row | None, Row | None]:
        return (
            evaluate(self.back) if len(self.back) == 5 else None,
            evaluate(self.middle) if len(self.middle) == 5 else None,
            evaluate(self.front) if self.complete else None,
        )

    @property
    def fouled(self) -> bool:
        rows = self.rows()
        return self.complete and is_fouled(*rows)  # type: ignore[arg-type]

    def back_options(self) -> tuple[Card, ...]:
        return tuple(c for c in self.hand if c not in self.middle)

    def middle_options(self) -> tuple[Card, ...]:
        return tuple(c for c in self.hand if c not in self.back)

    def place(self, position: str, cards: Sequence[Card], lang: str = "en") -> Draft:
        """Put exactly five cards in the back or the middle."""
        if len(cards) != 5:
            raise CapsaError(
                t(
                    "builder.wrong_count",
                    lang,
                    row=position_name(position, lang).lower(),
                    count=len(cards),
                )
            )
        other = self.middle if position == "back" else self.back
        for card in cards:
            if card not in self.hand:
                raise CapsaError(t("builder.not_held", lang, card=card.symbol))
            if card in other:
                raise CapsaError(t("builder.clash", lang, card=card.symbol))
        chosen = tuple(sort_hand(cards))
        if position == "back":
            return Draft(self.hand, chosen, self.middle)
        return Draft(self.hand, self.back, chosen)

    def with_setting(
        self, back: Sequence[Card], middle: Sequence[Card], arranged: bool = False
    ) -> Draft:
        """These rows; ``arranged``: they are Auto-arrange's suggestion."""
        return Draft(self.hand, tuple(sort_hand(back)), tuple(sort_hand(middle)), arranged)

    def cleared(self) -> Draft:
        return Draft(self.hand)


def preview_lines(draft: Draft, lang: str = "en", deck: DeckStyle = DeckStyle.CLASSIC) -> list[str]:
    """One line per row (front on top, as on the table), its cards in ``deck``'s style,
    then the verdict."""
    rows = draft.rows()
    cards = (draft.back, draft.middle, draft.front)
    lines = []
    for index in (2, 1, 0):
        position = ("back", "middle", "front")[index]
        label = f"**{position_name(position, lang)}**"
        row = rows[index]
        if row is not None:
            lines.append(f"{label}: {format_cards(row.cards, True, deck)} — {row_name(row, lang)}")
        elif position == "front":
            lines.append(f"{label}: {t('builder.front_rest', lang)}")
        else:
            shown = (
                format_cards(cards[index], True, deck) if cards[index] else t("builder.empty", lang)
            )
            lines.append(f"{label}: {shown}")
    if not draft.complete:
        lines.append(t("builder.need", lang))
    elif draft.fouled:
        lines.append(t("builder.fouled", lang))
    else:
        lines.append(t("builder.ok", lang))
    return lines
