# Two commands on a fresh machine (Python 3.11 and make):
#   make run    sets up .venv from requirements.lock and runs the bot (says how to get a token)
#   make test   sets up .venv from requirements-dev.lock and runs the tests
# `make lint` runs ruff and mypy, as CI does. Nothing here needs more than PyPI.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint

run: $(VENV)/.installed-bot
	@[ -f .env ] || { cp .env.example .env; echo "Made .env from .env.example."; }
	$(BIN)/python bot.py

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed-bot: requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.lock
	@touch $@

$(VENV)/.installed-dev: requirements-dev.lock | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.lock
	@touch $@ $(VENV)/.installed-bot
