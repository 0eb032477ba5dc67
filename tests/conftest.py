"""Tiny fixtures: a fresh lab with one or two brokers."""

from __future__ import annotations

import pytest

from rmqlab import Lab


@pytest.fixture
def lab() -> Lab:
    """One broker, topic ``T`` with 4 queues."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=4)
    return lab


@pytest.fixture
def lab2() -> Lab:
    """Two brokers, topic ``T`` with 2 queues on each."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", queues=2)
    return lab
