"""Value-added tax."""

VAT_RATES = {"standard": 20, "reduced": 10, "zero": 0}


def vat_cents(cents: int, rate: str = "standard") -> int:
    """Return the VAT on an amount in cents at the named rate, rounded down."""
    return cents * VAT_RATES[rate] // 100


def with_vat(cents: int, rate: str = "standard") -> int:
    """Return the amount in cents with its VAT added."""
    return cents + vat_cents(cents, rate)
