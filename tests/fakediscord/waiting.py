"""Keyed waiters: a change to an object wakes only the waiters registered on its key."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Hashable, Iterable
from typing import Any


class FakeTimeout(AssertionError, TimeoutError):
    """A scripted wait ran out of time (an AssertionError so pytest shows the message)."""


Predicate = Callable[[Any], bool]


class Watch:
    def __init__(self) -> None:
        self._waiters: dict[Hashable, list[tuple[Predicate, asyncio.Future[Any]]]] = {}

    def notify(self, key: Hashable, obj: Any) -> None:
        waiters = self._waiters.get(key)
        if not waiters:
            return
        keep: list[tuple[Predicate, asyncio.Future[Any]]] = []
        for pred, fut in waiters:
            if fut.done():
                continue
            try:
                ok = pred(obj)
            except Exception as exc:  # surface predicate bugs to the waiting test
                fut.set_exception(exc)
                continue
            if ok:
                fut.set_result(obj)
            else:
                keep.append((pred, fut))
        if keep:
            self._waiters[key] = keep
        else:
            del self._waiters[key]

    async def wait(
        self,
        key: Hashable,
        pred: Predicate,
        timeout: float,
        existing: Iterable[Any] = (),
        describe: Callable[[], str] | None = None,
    ) -> Any:
        """Return the first of ``existing`` matching ``pred``, else wait for a notify."""
        for obj in existing:
            if pred(obj):
                return obj
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(key, []).append((pred, fut))
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            detail = describe() if describe else ""
            raise FakeTimeout(f"timed out after {timeout}s waiting on {key!r}. {detail}") from None


async def eventually(
    condition: Callable[[], Any],
    timeout: float = 5.0,
    interval: float = 0.01,
    *,
    message: str | Callable[[], str] | None = None,
) -> Any:
    """Poll ``condition()`` until truthy (for state outside the fake, e.g. the bot's) and
    return its value. A condition that returns an awaitable (an async function, a lambda
    calling one) has it awaited each time. On timeout, ``message`` (or one made when it
    runs out, if callable) says what never happened."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            what = message() if callable(message) else message
            name = getattr(condition, "__qualname__", repr(condition))
            raise FakeTimeout(f"{what or f'condition {name} still false'} after {timeout}s")
        await asyncio.sleep(interval)
