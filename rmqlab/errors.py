"""The small error tree of rmqlab.

Outcomes of the simulated system (a message dead-lettered, a send that failed) are *data* in the
trace, never exceptions. Exceptions are for misuse of the library::

    RmqlabError
    ├── ConfigError (also ValueError)      a bad option: names the parameter, the value, what is allowed
    │   └── ScenarioError                  a bad scenario file: names the field path
    └── SimulationError (also RuntimeError) the engine was driven wrongly (e.g. run until the past)
"""

from __future__ import annotations

from typing import Any

__all__ = ["ConfigError", "RmqlabError", "ScenarioError", "SimulationError"]


class RmqlabError(Exception):
    """Base class of every error rmqlab raises on purpose."""


class ConfigError(RmqlabError, ValueError):
    """An option or argument is out of range, of the wrong type, or names something unknown."""

    def __init__(self, parameter: str, value: Any, allowed: str) -> None:
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        super().__init__(f"{parameter}={value!r} is not allowed: expected {allowed}")


class ScenarioError(ConfigError):
    """A scenario file is malformed; ``parameter`` is the JSON path of the offending field."""


class SimulationError(RmqlabError, RuntimeError):
    """The engine was asked to do something impossible, such as running backwards in time."""
