# Entry points, all self-installing on a fresh machine with only Python 3.11 and pip:
#   make lab     — opens JupyterLab on the student copy of the labs (build/student-labs, answers blanked)
#   make teacher — opens JupyterLab on the solved labs in labs/ (jupytext pairs: edit the .py or the notebook)
#   make test    — runs the whole test suite (engine, widgets, notebooks under nbval)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[lab,test,bench]'
	touch $(STAMP)

# JupyterLab refuses to start as root (a classroom container, a cloud VM) unless told it may.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# widgets.nodelay turns Nagle's algorithm off on kernel websockets: a Step click answers in ~25 ms, not ~65 ms.
LAB_FLAGS  := $(ALLOW_ROOT) --ServerApp.jpserver_extensions='{"widgets.nodelay": True}'

.PHONY: lab teacher test bench student sync
# The student copy is rebuilt first; a notebook the student has changed is kept (labs/make_student.py).
lab: student
	$(VENV)/bin/jupyter lab $(LAB_FLAGS) --notebook-dir=build/student-labs

teacher: $(STAMP)
	$(VENV)/bin/jupyter lab $(LAB_FLAGS) --notebook-dir=labs

# One pytest run: engine, widget and benchmark-harness tests, every notebook in labs/ under nbval (strict),
# and the browser suite (tests/browser), which first makes sure Debian's chromium is installed.
NBVAL_SANITIZE := $(wildcard labs/nbval_sanitize.cfg)
test: $(STAMP)
	bash .ci/browser-setup.sh
	$(PY) -m ruff check rmqlab widgets tests bench labs
	$(PY) -m mypy
	$(PY) -m pytest --nbval tests labs bench $(if $(NBVAL_SANITIZE),--nbval-sanitize-with $(NBVAL_SANITIZE))

bench: $(STAMP)
	$(PY) -m bench

student: $(STAMP)
	$(PY) labs/make_student.py labs build/student-labs

# After editing a lab's .py source: sync each pair and re-execute the notebooks whose cells changed.
sync: $(STAMP)
	$(PY) labs/sync.py
