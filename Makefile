# The commands in README.md. `make demo` and `make test` work on a fresh machine:
# they create .venv and install the project into it the first time.
PY ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-12)

.PHONY: install demo test ui bench validate clean

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	# CPU torch first, from the pinned file; an unpinned torch would pull a multi-GB CUDA build.
	$(VENV)/bin/pip install --quiet torch==2.13.0
	$(VENV)/bin/pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(VENV)/bin/wove demo

test: $(STAMP)
	# The browser test's Chromium (tests/ui): installed once with apt-get, a no-op after.
	scripts/install-browser.sh
	DAGSTER_HOME=$$(mktemp -d) $(VENV)/bin/dagster definitions validate -w workspace.yaml
	# Four workers, each test file on one of them (its fixtures set up once): many tests wait
	# on processes (Dagster runs, the daemon's 30 s sensors, the browser), so even on 2 cores
	# more workers overlap them: the suite took 1,060-1,500 s on two workers, 918-967 s on three
	# and 702 s on four (2026-12-03, idle machine, CPU 118% of one core: mostly waiting).
	HF_HUB_OFFLINE=1 $(VENV)/bin/pytest -q -n 4 --dist loadfile

ui: $(STAMP)
	HF_HUB_OFFLINE=1 $(VENV)/bin/wove ui

bench: $(STAMP)
	HF_HUB_OFFLINE=1 $(VENV)/bin/python -m bench

validate: $(STAMP)
	DAGSTER_HOME=$$(mktemp -d) $(VENV)/bin/dagster definitions validate -w workspace.yaml

clean:
	rm -rf .wove
