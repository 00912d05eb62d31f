"""Orders: lines of items bought by a customer."""
from dataclasses import dataclass, field

from .money import to_cents


@dataclass
class OrderLine:
    """One line of an order: an item name, a unit price in cents and a count."""

    name: str
    unit_cents: int
    count: int


@dataclass
class Order:
    """An order of a customer, with its lines and a status."""

    customer_id: int
    lines: list = field(default_factory=list)
    status: str = "open"


def add_line(order: Order, name: str, price: float, count: int = 1) -> None:
    """Append a line to the order, converting the euro price to cents."""
    order.lines.append(OrderLine(name=name, unit_cents=to_cents(price), count=count))


def order_total(order: Order) -> int:
    """Return the order's total in cents."""
    return sum(line.unit_cents * line.count for line in order.lines)


def close_order(order: Order) -> None:
    """Mark the order as closed; a closed order cannot change."""
    if order.status == "closed":
        raise ValueError("order already closed")
    order.status = "closed"
