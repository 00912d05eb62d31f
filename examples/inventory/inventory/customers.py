"""Customers and their addresses."""
from dataclasses import dataclass, field


@dataclass
class Customer:
    """A customer with a unique id, a display name and a list of addresses."""

    id: int
    name: str
    addresses: list = field(default_factory=list)


def display_name(customer: Customer) -> str:
    """Return the customer's name with its id, such as 'Ada (#7)'."""
    return f"{customer.name} (#{customer.id})"


def primary_address(customer: Customer):
    """Return the first address of the customer, or None when it has none."""
    return customer.addresses[0] if customer.addresses else None


def find_customer(customers: list, customer_id: int):
    """Return the customer with the given id, or None."""
    for customer in customers:
        if customer.id == customer_id:
            return customer
    return None
