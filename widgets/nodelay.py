"""A Jupyter server extension that turns Nagle's algorithm off on kernel websockets (``TCP_NODELAY``).

Why: jupyter_server 2.x never calls tornado's ``set_nodelay(True)`` on its kernel websocket, so when a
kernel answers a widget click with two small messages (``status: busy``, then the widget's update), the
second waits in the server's TCP stack until the browser acknowledges the first — and the browser
delays that ACK by Linux's 40 ms minimum. Every widget round trip on localhost then costs ≥ 40 ms.
``make lab`` and ``make teacher`` load it; ``python -m bench.browser_step_latency --nodelay`` measures the difference.

    jupyter lab --ServerApp.jpserver_extensions='{"rmqlab.widgets.nodelay": True}'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

__all__: list[str] = []


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": __name__}]  # rmqlab.widgets.nodelay


_patched: list[Any] = []
"""The handler class once patched (a server loads extensions once, but a test may start several)."""


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from jupyter_server.services.kernels.websocket import KernelWebsocketHandler

    if KernelWebsocketHandler in _patched:
        return
    original: Callable[..., Awaitable[Any]] = KernelWebsocketHandler.open  # jupyter_server leaves it unannotated

    async def open_without_nagle(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.set_nodelay(True)
        return await original(self, *args, **kwargs)

    KernelWebsocketHandler.open = open_without_nagle  # type: ignore[method-assign]
    _patched.append(KernelWebsocketHandler)
    serverapp.log.info("rmqlab.widgets.nodelay: TCP_NODELAY on kernel websockets")
