PY ?= python3.11
VENV = .venv
BIN = $(VENV)/bin
PORT ?= 8000

.PHONY: install test run demo bench lint clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

test: install
	$(BIN)/pytest $(PYTEST_ARGS)

run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo --if-empty
	SITE_URL="$${SITE_URL:-http://127.0.0.1:$(PORT)}" $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

demo: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo

bench: install
	$(BIN)/python -m tests.bench

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
