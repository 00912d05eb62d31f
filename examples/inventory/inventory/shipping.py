"""Shipping costs."""

FREE_SHIPPING_CENTS = 5000


def shipping_cents(total_cents: int, weight_grams: int) -> int:
    """Return the shipping cost in cents: free above 50 EUR, else 4.90 EUR plus 1 EUR per started kilogram."""
    if total_cents >= FREE_SHIPPING_CENTS:
        return 0
    kilos = (weight_grams + 999) // 1000
    return 490 + 100 * kilos
