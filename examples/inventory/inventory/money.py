"""Prices are kept as integer cents."""


def to_cents(amount: float) -> int:
    """Convert an amount in euros to whole cents, rounding half up."""
    return int(amount * 100 + 0.5)


def format_price(cents: int) -> str:
    """Format cents as a price such as '12.05 EUR'."""
    return f"{cents // 100}.{cents % 100:02d} EUR"
