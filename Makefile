# Every target creates .venv and installs the project when needed (pyproject.toml newer than the stamp).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.relreason-installed
export DAGSTER_DISABLE_TELEMETRY := 1
export DBT_SEND_ANONYMOUS_USAGE_STATS := False
export GX_ANALYTICS_ENABLED := False
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo test ui bench lint install

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/relreason demo

# Two test processes (pytest-xdist), each taking whole test files: most tests are one Python thread
# waiting on its own subprocesses, so two share a 2-core machine well.  TEST_WORKERS=0 runs them in one.
# --durations: the slowest tests are listed at the end of every run, so the ~15 min budget is watched.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -q --durations=25 $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

ui: $(STAMP)
	$(VENV)/bin/relreason ui

# lm-evaluation-harness, the comparison client of the concurrency benchmark, in a venv of its own
# (it pulls datasets, scikit-learn and more that relreason does not need).  If it cannot be
# installed the benchmark runs without it and its report says why.
LMEVAL_VENV := .venv-lmeval
LMEVAL_STAMP := $(LMEVAL_VENV)/.lm-eval-installed
$(LMEVAL_STAMP):
	-python3 -m venv $(LMEVAL_VENV) && $(LMEVAL_VENV)/bin/pip install -q 'lm-eval[api]==0.4.13' && touch $(LMEVAL_STAMP)

# `make bench ONLY=concurrency,gateway_cpu` runs only those sections (run_all.py --only).
bench: $(STAMP) $(LMEVAL_STAMP)
	$(PY) tests/perf/run_all.py $(if $(ONLY),--only $(ONLY))
