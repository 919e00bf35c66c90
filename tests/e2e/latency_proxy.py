"""A loopback TCP proxy in front of the API server that makes it slow: every chunk a client sends
reaches the server `delay` seconds after the proxy read it; the server's bytes come back at once.

What "50 ms per request" means here. The proxy sees TLS records, not HTTP requests, so it cannot
delay requests as such. A request from kubeberth's clients (urllib3, HTTP/1.1, one request at a
time per keep-alive connection) is written as one or a few TLS records in one burst, which the
proxy reads as one chunk (rarely two, read within microseconds of each other, both due `delay`
after they arrived). So each request reaches the API server `delay` later and each round trip
takes `delay` longer, which is what a distant or overloaded API server looks like to a client. It
is latency, not a throughput cap: chunks are queued with their due times and forwarded in order,
so a connection's second request is not held behind the first one's delay, and many connections
are slowed in parallel. A watch pays the delay once, on its request; its events stream back
undelayed. The TLS handshake's client flights are delayed too (a new connection costs about two
delays more), as on a real slow link.

One thread runs an asyncio loop for every connection; `close()` stops it and joins it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

LOOPBACK = "127.0.0.1"
CHUNK = 65536
QUEUED_CHUNKS = 256  # per connection: past this the proxy stops reading (TCP backpressure)


class LatencyProxy:
    """Forwards 127.0.0.1:`port` to 127.0.0.1:`target_port`, client-to-server chunks `delay` late."""

    def __init__(self, target_port: int, delay: float = 0.05) -> None:
        self.target_port = target_port
        self.delay = delay
        self.port = 0
        self.connections = 0  # accepted so far
        self.chunks_delayed = 0
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="latency-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise self._error
        if not self.port:
            raise RuntimeError("latency proxy did not start")

    # ---- the loop thread ------------------------------------------------------------------
    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._serve, LOOPBACK, 0, limit=CHUNK))
            self.port = self._server.sockets[0].getsockname()[1]
        except BaseException as exc:  # noqa: BLE001 - raised in the constructor
            self._error = exc
            self._ready.set()
            self._loop.close()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.run_until_complete(self._shutdown())
            self._loop.close()

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    def _track(self, coro: object) -> asyncio.Task[None]:
        task: asyncio.Task[None] = self._loop.create_task(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.connections += 1
        current = asyncio.current_task()
        if current is not None:
            self._tasks.add(current)
            current.add_done_callback(self._tasks.discard)
        try:
            server_r, server_w = await asyncio.wait_for(
                asyncio.open_connection(LOOPBACK, self.target_port, limit=CHUNK), 5)
        except (OSError, TimeoutError):
            client_w.close()
            return
        pending: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue(QUEUED_CHUNKS)
        up_read = self._track(self._read_delayed(client_r, pending))
        up_send = self._track(self._send_when_due(pending, server_w))
        down = self._track(self._pipe(server_r, client_w))
        try:
            await asyncio.wait({up_send, down}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (up_read, up_send, down):
                task.cancel()
            for writer in (client_w, server_w):
                with contextlib.suppress(Exception):
                    writer.close()

    async def _read_delayed(self, reader: asyncio.StreamReader, pending: asyncio.Queue[tuple[float, bytes]]) -> None:
        with contextlib.suppress(OSError):
            while True:
                data = await reader.read(CHUNK)
                await pending.put((time.monotonic() + self.delay, data))
                if not data:
                    return

    async def _send_when_due(self, pending: asyncio.Queue[tuple[float, bytes]], writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while True:
                due, data = await pending.get()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:  # the client closed its side: pass the close on, in order
                    return
                self.chunks_delayed += 1
                writer.write(data)
                await writer.drain()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while True:
                data = await reader.read(CHUNK)
                if not data:
                    return
                writer.write(data)
                await writer.drain()

    # ---- the caller's side -------------------------------------------------------------
    def close(self) -> None:
        """Stop accepting, drop every connection, stop the loop thread and join it."""
        if self._loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> LatencyProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
