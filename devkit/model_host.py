"""A stand-in for Hugging Face's file hosting, on a loopback port.

The internet is not reachable from tests. This small HTTP/1.1 server serves files from
memory the way a file host does (`Content-Length`, `Range: bytes=N-` answered with 206 and
`Content-Range`, 416 past the end, 404 for unknown names) and can misbehave on purpose:

* `cut_once`: for a file name, send only that many bytes of the body the first time, then
  close the connection (a broken download: fewer bytes than `Content-Length` announced);
* `announce`: for a file name, announce this `Content-Length` and send no body (a file
  too large for the disk, without sending it);
* `bytes_per_s`: send bodies no faster than this (a download that takes a while, so that
  its progress can be watched: the demo's first start, the app's progress tests).

With `tls` it serves https (a throw-away CA's certificate). It is a plain asyncio
server, so a cut connection is exactly that: no framework finishes
the response.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
import re
import ssl

from devkit.mosquitto import free_port

RANGE = re.compile(r"bytes=(\d+)-")


@dataclass(frozen=True)
class ServedRequest:
    path: str
    range: str | None


@dataclass
class ModelHostStandIn:
    """Serves `files` (name -> bytes) under `/<name>`."""

    files: dict[str, bytes] = field(default_factory=dict)
    cut_once: dict[str, int] = field(default_factory=dict)
    announce: dict[str, int] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    requests: list[ServedRequest] = field(default_factory=list)
    tls: ssl.SSLContext | None = None
    """Serve https with this context (the app downloads over https only)."""
    bytes_per_s: int | None = None
    """Send bodies at about this rate; None: as fast as the connection takes them."""
    _server: asyncio.Server | None = field(default=None, init=False, repr=False)

    def url(self, name: str = "") -> str:
        scheme = "http" if self.tls is None else "https"
        return f"{scheme}://127.0.0.1:{self.port}/{name}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, ssl=self.tls)

    async def stop(self) -> None:
        if self._server is not None:
            server, self._server = self._server, None
            server.close()
            server.close_clients()
            await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._answer(reader, writer)
        except ConnectionError:
            pass  # the client went away: that is what some tests do
        finally:
            writer.close()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = (await reader.readline()).decode("latin-1").split()
        headers: dict[str, str] = {}
        while (line := (await reader.readline()).decode("latin-1").strip()) != "":
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if len(request_line) < 2 or request_line[0] != "GET":
            await _respond(writer, 405, {})
            return
        name = request_line[1].lstrip("/").split("?", 1)[0]
        self.requests.append(ServedRequest(name, headers.get("range")))

        if name in self.announce:
            await _respond(writer, 200, {"Content-Length": str(self.announce[name])})
            await reader.read()  # wait until the client gives up and closes
            return
        body = self.files.get(name)
        if body is None:
            await _respond(writer, 404, {"Content-Length": "0"})
            return
        start = 0
        match = RANGE.fullmatch(headers.get("range", ""))
        if match is not None:
            start = int(match.group(1))
            if start >= len(body):
                await _respond(
                    writer, 416, {"Content-Range": f"bytes */{len(body)}", "Content-Length": "0"}
                )
                return
            status = 206
            extra = {"Content-Range": f"bytes {start}-{len(body) - 1}/{len(body)}"}
        else:
            status, extra = 200, {}
        part = body[start:]
        await _respond(writer, status, {"Content-Length": str(len(part)), **extra})
        cut = self.cut_once.pop(name, None)
        if cut is not None:
            writer.write(part[:cut])
            await writer.drain()
            # A client drops bytes it has not read yet when the connection breaks; give it a
            # moment to read what was sent, as on a real network where data flows for a while.
            await asyncio.sleep(0.2)
            writer.close()  # end the connection mid-body
            await writer.wait_closed()
            return
        await self._send(writer, part)

    async def _send(self, writer: asyncio.StreamWriter, body: bytes) -> None:
        if self.bytes_per_s is None:
            writer.write(body)
            await writer.drain()
            return
        step = max(1, self.bytes_per_s // 10)  # ten pieces a second
        for offset in range(0, len(body), step):
            writer.write(body[offset : offset + step])
            await writer.drain()
            await asyncio.sleep(0.1)


async def _respond(writer: asyncio.StreamWriter, status: int, headers: dict[str, str]) -> None:
    reason = {200: "OK", 206: "Partial Content", 404: "Not Found", 405: "Method Not Allowed"}
    lines = [f"HTTP/1.1 {status} {reason.get(status, 'Range Not Satisfiable')}"]
    lines += [f"{key}: {value}" for key, value in headers.items()]
    lines += ["Content-Type: application/octet-stream", "Connection: close", "", ""]
    writer.write("\r\n".join(lines).encode("latin-1"))
    await writer.drain()
