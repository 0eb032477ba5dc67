# Two entry points, both self-installing on a fresh machine with only Python 3.11 and pip:
#   make lab   — opens JupyterLab on labs/
#   make test  — runs the whole test suite (engine, widgets, notebooks under nbval)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[lab,test,bench]'
	touch $(STAMP)

.PHONY: lab test bench student
lab: $(STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=labs

# One pytest run: engine, widget and benchmark-harness tests, every notebook in labs/ under nbval (strict),
# and the browser suite (tests/browser), which first makes sure Debian's chromium is installed.
NBVAL_SANITIZE := $(wildcard labs/nbval_sanitize.cfg)
test: $(STAMP)
	bash .ci/browser-setup.sh
	$(PY) -m ruff check rmqlab widgets tests bench labs
	$(PY) -m pytest --nbval tests labs bench $(if $(NBVAL_SANITIZE),--nbval-sanitize-with $(NBVAL_SANITIZE))

bench: $(STAMP)
	$(PY) -m bench

student: $(STAMP)
	$(PY) labs/make_student.py labs build/student-labs
