"""Discount rules."""


def percent_off(cents: int, percent: int) -> int:
    """Return the amount in cents reduced by a whole percentage."""
    if not 0 <= percent <= 100:
        raise ValueError(f"percent {percent} outside 0..100")
    return cents - cents * percent // 100


def bulk_discount(count: int) -> int:
    """Return the percentage off for buying count units: 10 from 10 units, 20 from 50."""
    if count >= 50:
        return 20
    if count >= 10:
        return 10
    return 0
