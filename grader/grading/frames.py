"""Length-prefixed JSON frames over pipes (the warm grader's protocol)."""

from __future__ import annotations

import json
import os
import struct
from typing import Any

HEADER = struct.Struct("!Q")
MAX_FRAME = 64 * 2**20


def encode(message: Any) -> bytes:
    body = json.dumps(message, allow_nan=False).encode("utf-8")
    return HEADER.pack(len(body)) + body


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class FrameReader:
    """Accumulates bytes and yields whole frames."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[Any]:
        self.buffer += data
        frames = []
        while len(self.buffer) >= HEADER.size:
            (size,) = HEADER.unpack_from(self.buffer)
            if size > MAX_FRAME:
                raise ValueError(f"frame of {size} bytes is too large")
            if len(self.buffer) < HEADER.size + size:
                break
            body = bytes(self.buffer[HEADER.size : HEADER.size + size])
            del self.buffer[: HEADER.size + size]
            frames.append(json.loads(body))
        return frames
