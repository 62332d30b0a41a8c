"""How a node delivers webhooks: its timeouts, retries and lease. Apart from deliver.py so that the
CLI can show the defaults in `morale serve --help` without importing the server."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeliverySettings:
    timeout_s: float = 10.0  # one attempt, from connecting to the answer's status
    retry_first_s: float = 1.0  # the wait after a first failure; doubled after each one more
    retry_most_s: float = 300.0  # the longest wait between two attempts
    attempts: int = 10  # failures in a row before the hook is paused (about 13 minutes at the defaults)
    lease_s: float = 15.0  # how long the delivering node's lease lasts unrenewed: a killed node's successor waits this
    poll_s: float = 0.5  # SQLite: how often a worker looks for appends by other processes


def wait_after(failures: int, settings: DeliverySettings) -> float:
    """The wait before the next attempt, after `failures` in a row."""
    return min(settings.retry_first_s * 2 ** (failures - 1), settings.retry_most_s)


DELIVERY = DeliverySettings()
