# Two entry points, both self-installing on a fresh machine with only Python 3.11 and pip:
#   make lab   — opens JupyterLab on labs/
#   make test  — runs the whole test suite (engine, widgets, notebooks under nbval, browser)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[lab,test,bench]'
	touch $(STAMP)

.PHONY: lab test lint bench student
lab: $(STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=labs

test: $(STAMP)
	$(PY) -m ruff check rmqlab widgets tests bench
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m bench

student: $(STAMP)
	$(PY) -m rmqlab.student labs build/student-labs
