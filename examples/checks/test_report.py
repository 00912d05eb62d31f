"""What inventory.report.price_list must do, by its docstring: one line per
item in stock, sorted by name, "name: price" with the price formatted by
inventory.money.format_price. scripts/check-main-job.sh runs it against the
function the README's main job writes."""
from inventory.report import price_list
from inventory.stock import Item


def test_price_list_lists_items_in_stock_sorted_by_name():
    items = [Item("pear", 250, 3), Item("apple", 1205, 0), Item("fig", 99, 1)]
    assert price_list(items).splitlines() == ["fig: 0.99 EUR", "pear: 2.50 EUR"]


def test_price_list_of_nothing_in_stock_is_empty():
    assert price_list([Item("kiwi", 10, 0)]).strip() == ""
