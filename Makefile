# Entry points, all self-installing on a fresh machine with only Python 3.11 and pip:
#   make lab     — opens a student's JupyterLab on the student copy of the labs (build/student-labs: answers
#                  blanked, explanations sealed; no nbgrader tools, even where nbgrader is installed)
#   make teacher — opens a teacher's JupyterLab on the solved labs in labs/ (jupytext pairs: edit the .py or the
#                  notebook), with nbgrader's formgrader, Create Assignment and Validate
#   make test    — runs the whole test suite (engine, widgets, notebooks under nbval, browser, site builds)
#   make lite    — builds build/lite/, a JupyterLite site (Python in the browser) to put on any static host
#   make docs    — builds build/docs/, the static documentation site
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# Install levels: what a student needs to run the labs ([lab]: no nbgrader, labs/make_student.py needs none), what a
# teacher adds ([teacher]: nbgrader), and everything (tests, site builds, benchmarks). With the versions CI tests.
# pip's own output (warnings, resolver notes, ~200 lines on a fresh machine) goes to build/pip.log, shown only if pip
# fails: `make lab` prints what a person needs (what it is doing, where the labs are, the URL to open).
PIP_LOG     := build/pip.log
LOGGED       = @sh -c 'mkdir -p build && echo "installing into $(VENV) (pip output: $(PIP_LOG))" && "$$@" >>$(PIP_LOG) 2>&1 \
               || { tail -n 25 $(PIP_LOG); echo "pip failed; the whole log: $(PIP_LOG)"; exit 1; }' logged
PIP_INSTALL := $(LOGGED) $(PY) -m pip install --quiet -c constraints.txt
LAB_STAMP   := $(VENV)/.lab-stamp
TEACHER_STAMP := $(VENV)/.teacher-stamp
STAMP       := $(VENV)/.installed-stamp

$(VENV)/.venv-stamp:
	@test -x $(PY) || { echo "creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	$(LOGGED) $(PY) -m pip install --quiet --upgrade pip
	touch $@

$(LAB_STAMP): pyproject.toml constraints.txt $(VENV)/.venv-stamp
	$(PIP_INSTALL) -e '.[lab]'
	touch $@

$(TEACHER_STAMP): pyproject.toml constraints.txt $(LAB_STAMP)
	$(PIP_INSTALL) -e '.[lab,teacher]'
	touch $@

# --park: the Pyodide kernel's lab extension only works in the Lite site; in JupyterLab's path it fails on every page
$(VENV)/.lite-stamp: pyproject.toml constraints.txt $(LAB_STAMP)
	$(PIP_INSTALL) -e '.[lab,lite]'
	$(PY) lite/build_lite.py --park
	touch $@

$(VENV)/.docs-stamp: pyproject.toml constraints.txt $(LAB_STAMP)
	$(PIP_INSTALL) -e '.[lab,teacher,docs]'
	touch $@

$(STAMP): pyproject.toml constraints.txt $(LAB_STAMP)
	$(PIP_INSTALL) -e '.[lab,teacher,test,lite,docs,bench]'
	$(PY) lite/build_lite.py --park
	touch $@

# tests/test_hub_class.py runs a class on a real JupyterHub, whose proxy is configurable-http-proxy from npm: the one
# on the PATH, else this pinned one, installed into the venv (tests/hubs.py looks in $(VENV)/node_modules/.bin).
CHP_VERSION := 5.3.0
HUB_STAMP   := $(VENV)/.hub-stamp
$(HUB_STAMP): $(STAMP)
	@command -v configurable-http-proxy >/dev/null || { echo "installing configurable-http-proxy into $(VENV) (npm)"; \
	    mkdir -p build && npm install --prefix $(VENV) --no-fund --no-audit configurable-http-proxy@$(CHP_VERSION) \
	    >>$(PIP_LOG) 2>&1 || { tail -n 25 $(PIP_LOG); echo "npm failed; the whole log: $(PIP_LOG)"; exit 1; }; }
	@touch $@

# JupyterLab refuses to start as root (a classroom container, a cloud VM) unless told it may.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# rmqlab.widgets.nodelay turns Nagle's algorithm off on kernel websockets: a Step click answers in ~25 ms, not ~65 ms.
LAB_FLAGS  := $(ALLOW_ROOT) --ServerApp.jpserver_extensions='{"rmqlab.widgets.nodelay": True}'
# make lab: warnings and the URL banner only, not the server's and JupyterLab's start-up notes
QUIET_LAB  := --ServerApp.log_level=WARN --LabApp.log_level=WARN
# Whose Jupyter: a config directory written by deploy/jupyter_roles.py (student: no nbgrader; teacher: all of it).
# JUPYTER_PREFER_ENV_PATH=0 lets it win over the venv's own etc/jupyter, where nbgrader enables itself.
ROLE_CONFIG = build/jupyter-$(1)
AS_ROLE     = $(PY) deploy/jupyter_roles.py $(1) $(call ROLE_CONFIG,$(1)) >/dev/null && \
              JUPYTER_PREFER_ENV_PATH=0 JUPYTER_CONFIG_DIR=$(call ROLE_CONFIG,$(1))

.PHONY: lab teacher test bench student sync lite docs readme-shot
# The student copy is rebuilt first; a notebook the student has changed is kept (labs/make_student.py).
lab: student
	@echo 'The labs are in build/student-labs (start with 00_tour.ipynb; 中文版在 zh/ 文件夹; your answers there are kept by the next make lab).'
	@echo 'Open the URL JupyterLab prints below (http://localhost:8888/lab?token=…); Ctrl-C stops it.'
	@$(call AS_ROLE,student) $(VENV)/bin/jupyter lab $(LAB_FLAGS) $(QUIET_LAB) --notebook-dir=build/student-labs

# The teacher's tools: nbgrader's formgrader and Create Assignment on the solved labs; `python -m teacher.compile`
# after changing an answer (labs/NN_x.py), an explanation or a hint (teacher/) — docs/classroom.md.
teacher: $(TEACHER_STAMP)
	$(call AS_ROLE,teacher) $(VENV)/bin/jupyter lab $(LAB_FLAGS) $(QUIET_LAB) --notebook-dir=labs

# One pytest run: engine, widget and benchmark-harness tests, every notebook in labs/ under nbval (strict),
# and the browser suite (tests/browser), which first makes sure Debian's chromium is installed.
# Two xdist workers, one per core of the CI machine; --dist loadgroup is tests/conftest.py's scheduler (whole files
# or notebooks per worker, the long ones first).
NBVAL_SANITIZE := $(wildcard labs/nbval_sanitize.cfg)
test: $(STAMP) $(HUB_STAMP)
	bash .ci/browser-setup.sh
	$(PY) -m ruff check rmqlab widgets tests bench labs lite docs
	$(PY) -m mypy
	$(PY) -m pytest -n 2 --dist loadgroup --nbval tests labs bench $(if $(NBVAL_SANITIZE),--nbval-sanitize-with $(NBVAL_SANITIZE))

bench: $(STAMP)
	$(PY) -m bench

student: $(LAB_STAMP)
	$(PY) labs/make_student.py labs build/student-labs
	$(PY) labs/make_student.py labs/zh build/student-labs/zh

# The zero-install site: JupyterLite with the student copies, the wheels and the Pyodide runtime, served by any
# static web server (README: "The zero-install site"). Needs PyPI and the npm registry once (cached in build/).
lite: student $(VENV)/.lite-stamp
	$(PY) lite/build_lite.py build/student-labs build/lite

# The documentation site: README, every lab rendered with its pictures, scenario-file and CLI references.
docs: $(VENV)/.docs-stamp
	$(PY) docs/build_docs.py build/docs

# After editing a lab's .py source: sync each pair and re-execute the notebooks whose cells changed.
sync: $(LAB_STAMP)
	$(PY) labs/sync.py

# Rewrite the golden files of examples/ (X.expected.json, the --json report; X.expected.txt, the timeline) after an
# intended engine change, then read the diff: it is the behaviour change. Tests only compare. One example:
# `$(PY) -m tests.goldens ack_index_split`.
.PHONY: goldens
goldens: $(STAMP)
	$(PY) -m tests.goldens

# Refresh docs/dashboard.png (lab 03 at its end, in headless chromium). Tests never write tracked files; this does.
readme-shot: $(STAMP)
	$(PY) -m tests.browser.readme_shot

# Issue 15 item 6, a classroom under load: a real JupyterHub on 127.0.0.1, 20 students running labs 03 and 07a at
# once (3-6 minutes, so not part of make test).
.PHONY: hub-load
hub-load: $(HUB_STAMP)
	RMQLAB_HUB_LOAD=1 $(PY) -m pytest -q -s -m hub tests/test_hub_load.py

# Issue 31, a graded class on a real JupyterHub on 127.0.0.1, alone (it is part of make test too): the teacher
# releases lab 08 from the Formgrader, two students fetch it, answer and submit, the teacher collects, autogrades and
# returns feedback (~55 CPU-seconds: three servers, two autograded runs).
.PHONY: hub-class
hub-class: $(HUB_STAMP)
	$(PY) -m pytest -q tests/test_hub_class.py

# Issue 15 item 4, the long storm campaign: 500 seeds of bench/fault_storms.py, each 24 virtual hours of mixed faults
# then 6 h healed (~8 CPU-s per seed: ~35 min on two free cores), checked by check_invariants and an independent
# oracle; the summary and each failing seed, shrunk to a scenario file, go to build/storms/. Not part of make test
# (it keeps a fixed sample). In the background: `make storms > build/storms.log 2>&1 &`; a run stopped early is
# summarised with `python -m bench.storm_campaign --summarise build/storms/results.jsonl`.
# Issue 34 moved the default to seeds no earlier campaign used (1000:1500); `make storms STORM_SEEDS=0:500` re-runs
# the old ones. `make interrupt-storms`: 50 storms run straight and with 30 random real SIGINTs each, resumed after
# each one (bench/interrupt_campaign.py); clean when the resumed run ends in the same trace and state and drains.
STORM_SEEDS ?= 1000:1500
STORM_JOBS  ?= 2
INTERRUPT_SEEDS ?= 1000:1050
.PHONY: storms interrupt-storms
storms: $(STAMP)
	mkdir -p build/storms
	nice -n 10 $(PY) -m bench.storm_campaign --seeds $(STORM_SEEDS) --jobs $(STORM_JOBS) --out build/storms

interrupt-storms: $(STAMP)
	nice -n 10 $(PY) -m bench.interrupt_campaign --seeds $(INTERRUPT_SEEDS) --interrupts 30

# The long checks make test only samples, for a nightly job (hours on a shared machine): the property test at its full
# size (tests/test_properties.py: 300 random clusters; make test runs 75 of them, RMQLAB_FULL_PROPERTIES unset), then
# the storm campaign above.
.PHONY: nightly
nightly: $(STAMP)
	RMQLAB_FULL_PROPERTIES=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_properties.py
	$(MAKE) storms
