package symbols

import (
	"reflect"
	"strings"
	"testing"
)

// repo is a hand-made repository: a package with an __init__ that
// re-exports, relative and absolute imports, aliases, a star import, a
// class hierarchy across files and a name defined twice.
var repo = map[string][]byte{
	"shop/__init__.py": []byte("from .money import format_price as fmt_price\n"),
	"shop/money.py": []byte(`CURRENCY = "EUR"


def format_price(cents):
    """Format cents as a price."""
    return f"{cents / 100:.2f} {CURRENCY}"


def parse_price(text):
    return int(text)


def parse_price(text):
    """The second definition wins."""
    return int(float(text) * 100)
`),
	"shop/stock.py": []byte(`from dataclasses import dataclass


class Base:
    def describe(self):
        """Say what it is."""
        return "item"


@dataclass
class Item(Base):
    """An item in stock."""
    name: str
    price_cents: int = 0

    def total(self, n):
        return self.price_cents * n


def in_stock(items):
    return [i for i in items if i.price_cents]
`),
	"shop/consts.py": []byte("RED = 1\nGREEN = 2\n_HIDDEN = 3\n"),
	"shop/report.py": []byte(`import shop.money as m
from shop import fmt_price
from .stock import Item, in_stock as available
from . import money
from .consts import *


def header():
    return "Report"


def report(items):
    """Lines of items with their price, using fmt_price."""
    return "\n".join(fmt_price(i.price_cents) for i in available(items))


def footer():
    return "end"
`),
	"shop/cart.py": []byte(`from .stock import Item


class Cart(Item):
    def add(self, other):
        """Add another item."""
        return self.total(1) + other.total(1)
`),
	"README.md": []byte("not python"),
}

func target(t *testing.T, tab *Table, path, name string) Target {
	t.Helper()
	m := tab.module(path)
	for _, d := range m.defs {
		if d.Name == name {
			return Target{Path: path, Start: d.Start, End: d.End, Class: d.Class, Prompt: d.Summary}
		}
	}
	t.Fatalf("%s has no %s", path, name)
	return Target{}
}

func names(fs []Found) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Bound+"="+f.Path+":"+f.Qualified())
	}
	return out
}

func TestInScope(t *testing.T) {
	tab := New(repo)
	tg := target(t, tab, "shop/report.py", "report")
	got := names(tab.InScope(tg))
	want := []string{
		// mentioned in the docstring first
		"fmt_price=shop/money.py:format_price",
		// then by the distance of the line that binds them
		"footer=shop/report.py:footer",
		"header=shop/report.py:header",
		"RED=shop/consts.py:RED",
		"GREEN=shop/consts.py:GREEN",
		"Item=shop/stock.py:Item",
		"available=shop/stock.py:in_stock",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("InScope:\n got %q\nwant %q", got, want)
	}
}

func TestResolveTwiceDefinedAndModules(t *testing.T) {
	tab := New(repo)
	b, ok := tab.resolve("shop/money.py", "parse_price", 0)
	if !ok || b.def == nil || !strings.Contains(b.def.Summary, "second definition") {
		t.Fatalf("parse_price: the last definition should win, got %+v", b.def)
	}
	for expr, file := range map[string]string{"m": "shop/money.py", "money": "shop/money.py"} {
		b, ok := tab.resolveDotted("shop/report.py", expr, 0)
		if !ok || b.module != file {
			t.Errorf("%s: want module %s, got %+v", expr, file, b)
		}
	}
	if _, ok := tab.resolve("shop/report.py", "dataclass", 0); ok {
		t.Error("a name imported from outside the repository should not resolve")
	}
}

func TestMembersFollowBases(t *testing.T) {
	tab := New(repo)
	tg := target(t, tab, "shop/cart.py", "add")
	var got []string
	for _, f := range tab.Lookup(tg, "self", "") {
		got = append(got, f.Qualified())
	}
	want := []string{"Item.name", "Item.price_cents", "Item.total", "Base.describe"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("self. lookup: got %q, want %q", got, want)
	}
	scope := names(tab.InScope(tg))
	if len(scope) == 0 || !strings.HasPrefix(scope[0], "self.name=") {
		t.Errorf("a method's scope should start with its class's members, got %q", scope)
	}
}

func TestLookup(t *testing.T) {
	tab := New(repo)
	tg := target(t, tab, "shop/report.py", "report")
	cases := []struct {
		receiver, partial string
		want              []string
	}{
		{"", "fmt", []string{"fmt_price=shop/money.py:format_price"}},
		{"", "in_", []string{"in_stock=shop/stock.py:in_stock"}},
		{"m", "format", []string{"m.format_price=shop/money.py:format_price"}},
		{"money", "parse", []string{"money.parse_price=shop/money.py:parse_price"}},
		{"Item", "to", []string{"Item.total=shop/stock.py:Item.total"}},
		{"i", "price", []string{"i.price_cents=shop/stock.py:Item.price_cents"}},
		{"", "report", nil}, // the target itself is never shown
	}
	for _, c := range cases {
		got := names(tab.Lookup(tg, c.receiver, c.partial))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Lookup(%q, %q) = %q, want %q", c.receiver, c.partial, got, c.want)
		}
	}
}

func TestNameAt(t *testing.T) {
	cases := []struct {
		text, receiver, partial string
		ok                      bool
	}{
		{"    return format_", "", "format_", true},
		{"    x = self.", "self", "", true},
		{"    y = os.path.jo", "os.path", "jo", true},
		{"    z = items[0].na", "items[0]", "na", true},
		{"    z = f(a, b).x", "f(a, b)", "x", true},
		{"    return (", "", "", false},
		{"    # a comment wo", "", "", false},
		{"    s = 'abc", "", "", false},
		{"    n = 12", "", "", false},
	}
	for _, c := range cases {
		r, p, ok := NameAt(c.text)
		if r != c.receiver || p != c.partial || ok != c.ok {
			t.Errorf("NameAt(%q) = %q, %q, %v; want %q, %q, %v", c.text, r, p, ok, c.receiver, c.partial, c.ok)
		}
	}
}
