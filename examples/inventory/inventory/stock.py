"""Items in stock."""
from dataclasses import dataclass

from .money import to_cents


@dataclass
class Item:
    """One product line: its name, unit price in cents and quantity."""

    name: str
    price_cents: int
    quantity: int


def make_item(name: str, price: float, quantity: int = 1) -> Item:
    """Create an item from a price in euros."""
    return Item(name=name, price_cents=to_cents(price), quantity=quantity)


def in_stock(items: list) -> list:
    """Return the items whose quantity is above zero."""
    return [item for item in items if item.quantity > 0]
