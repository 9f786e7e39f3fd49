"""A scripted long task for the handoff's tests and bench/handoff.py: real ruff and pytest, three failed
verify runs and a check run, errors that come and go, two patterns, a decision, a claim and steps."""
from __future__ import annotations

FILES = {
    "pyproject.toml": '[project]\nname = "shop"\n\n[tool.ruff.lint]\nselect = ["F"]\n\n[tool.pytest.ini_options]\n',
    "shop/__init__.py": "",
    "shop/cart.py": "from shop.prices import price\n\n\ndef total(items):\n    return sum(price(i) for i in items)\n",
    "shop/prices.py": 'PRICES = {"apple": 0.5, "pear": 0.75}\n\n\ndef price(name):\n    return PRICES[name]\n',
    "tests/test_cart.py": 'from shop.cart import total\n\n\ndef test_total():\n    assert total(["apple", "pear"]) == 1.25\n',
}

MONEY = ('def format_euros(cents):\n    return f"{cents / 100:.2f} EUR"\n\n\n'
         'def to_cents(euros):\n    return int(Decimal(euros) * 100 + Decimal("0.5"))\n')

TASK = "keep prices and totals in integer cents"
PATTERNS = ("Money is an int of cents everywhere; euros appear only in format_euros (shop/money.py)",
            "shop/ modules import each other by absolute path (from shop.x import y)")
DECISION = "round half up when a price in euros becomes cents"


def long_task(project) -> None:
    """Run the task up to its third failed verify; the project must be empty (`tests.conftest.Project`)."""
    for rel, text in FILES.items():
        project.write(rel, text)
    project.init_git()
    project.rt("start", TASK)
    project.rt("plan", "--edit", "shop/cart.py", "shop/prices.py", "tests/test_cart.py", "--create", "shop/money.py",
               "--note", "prices and totals in integer cents; euros only when shown")
    for pattern in PATTERNS:
        project.rt("note", "--pattern", pattern)
    project.rt("note", "--decision", DECISION)
    # 1: prices in cents, a stray import, the test still in euros; money.py not made yet
    project.write("shop/prices.py", 'PRICES = {"apple": 50, "pear": 75}\n\n\ndef price(name):\n    return PRICES[name]\n')
    project.write("shop/cart.py", "import os\n\n" + FILES["shop/cart.py"])
    project.rt("verify", ret=1)
    project.rt("step", "prices in cents")
    # 2: the import goes; the editing hooks' check of the file sees it gone
    project.write("shop/cart.py", '"""Cart totals, in cents."""\n' + FILES["shop/cart.py"])
    project.rt("check", "shop/cart.py")
    # 3: the money helpers, missing their import; the test in cents
    project.write("shop/money.py", MONEY)
    project.write("tests/test_cart.py", FILES["tests/test_cart.py"].replace("== 1.25", "== 125"))
    project.rt("verify", ret=1)
    project.rt("step", "money helpers; the test counts cents")
    # 4: the import added, and a variable left unused
    project.write("shop/money.py", "from decimal import Decimal\n\n\n" + MONEY.replace(
        "    return f\"{cents", "    rate = 100\n    return f\"{cents"))
    project.rt("claim", "format_euros matches the receipts' format")
    project.rt("verify", ret=1)
