PY ?= python3.11
VENV = .venv
BIN = $(VENV)/bin
PORT ?= 8000

.PHONY: install test run run-empty demo bench lint clean

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

# A fresh empty site beside the demo: its own SQLite file (EMPTY_DB, kept between runs; delete
# it to start again), migrated, no demo; the first account is asked for on the terminal
# (createsuperuser) while the site has none. DEBUG stays on (an SQLite database).
EMPTY_DB ?= empty.sqlite3
run-empty: install
	DATABASE_URL="sqlite:///$(abspath $(EMPTY_DB))" $(BIN)/python manage.py migrate --noinput
	DATABASE_URL="sqlite:///$(abspath $(EMPTY_DB))" $(BIN)/python manage.py shell -c \
		"import sys; from django.contrib.auth import get_user_model; sys.exit(0 if get_user_model().objects.exists() else 1)" \
		|| DATABASE_URL="sqlite:///$(abspath $(EMPTY_DB))" $(BIN)/python manage.py createsuperuser
	DATABASE_URL="sqlite:///$(abspath $(EMPTY_DB))" SITE_URL="$${SITE_URL:-http://127.0.0.1:$(PORT)}" \
		$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

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

# The browser packages of package.json (pinned in package-lock.json), copied into static/vendor/:
# only the ES modules, the stylesheet and the piece sprite the board viewer loads, and Chart.js's
# browser build (the format lab's charts), with their licences. The copies are kept in the
# repository, so run and test never need npm. Source-map comments are dropped (the maps are not
# copied; collectstatic would look for them).
CM_CHESSBOARD_FILES = LICENSE assets/chessboard.css assets/pieces/standard.svg src/Chessboard.js \
	src/lib/Svg.js src/lib/Utils.js src/model/ChessboardState.js src/model/Extension.js \
	src/model/Position.js src/view/ChessboardView.js src/view/PositionAnimationsQueue.js \
	src/view/VisualMoveInput.js src/extensions/markers/Markers.js \
	assets/extensions/markers/markers.css assets/extensions/markers/markers.svg \
	src/extensions/promotion-dialog/PromotionDialog.js \
	assets/extensions/promotion-dialog/promotion-dialog.css

.PHONY: vendor
vendor:
	npm ci --no-audit --no-fund
	rm -rf static/vendor
	for f in $(CM_CHESSBOARD_FILES); do \
		install -D -m 644 node_modules/cm-chessboard/$$f static/vendor/cm-chessboard/$$f || exit 1; \
	done
	install -D -m 644 node_modules/chess.js/LICENSE static/vendor/chess.js/LICENSE
	install -D -m 644 node_modules/chess.js/dist/esm/chess.js static/vendor/chess.js/chess.js
	install -D -m 644 node_modules/chart.js/LICENSE.md static/vendor/chart.js/LICENSE.md
	install -D -m 644 node_modules/chart.js/dist/chart.umd.min.js static/vendor/chart.js/chart.umd.min.js
	sed -i '/sourceMappingURL=/d' static/vendor/chess.js/chess.js \
		static/vendor/cm-chessboard/assets/chessboard.css static/vendor/chart.js/chart.umd.min.js \
		static/vendor/cm-chessboard/assets/extensions/markers/markers.css \
		static/vendor/cm-chessboard/assets/extensions/promotion-dialog/promotion-dialog.css

clean:
	rm -rf $(VENV) db.sqlite3 $(EMPTY_DB) staticfiles
