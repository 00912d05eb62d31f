"""Text reports about the stock."""
from .money import format_price
from .stock import Item, in_stock


def stock_value(items: list) -> int:
    """Return the total value in cents of the items in stock (price times quantity)."""
    return sum(item.price_cents * item.quantity for item in in_stock(items))


def price_list(items: list) -> str:
    """Return one line per item in stock, sorted by name: the name, a colon and its formatted price."""
    lines = [f"{item.name}: {format_price(item.price_cents)}" for item in in_stock(items)]
    return "\n".join(sorted(lines))
