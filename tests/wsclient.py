"""A blocking WebSocket client (RFC 6455, text frames only) for end-to-end tests: the web
front end's JSON protocol over a real socket, as a browser speaks it."""
from __future__ import annotations

import base64
import json
import os
import socket
import struct


class WebSocketClient:
    """One ``/ws`` connection; ``feed`` turns bytes read into ``messages`` (decoded JSON)."""

    def __init__(self, port: int, timeout: float = 10.0, name: str = "") -> None:
        self.name = name
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError(f"no upgrade; had {head!r}")
            head += chunk
        head, _, self.buffer = head.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise AssertionError(f"upgrade refused: {head!r}")
        self.messages: list[dict] = []
        self.closed = False
        self.feed(b"")

    def send(self, message: dict) -> None:
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 1 << 16:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 2:
            first, second = self.buffer[0], self.buffer[1]
            length, at = second & 0x7F, 2
            if length == 126:
                if len(self.buffer) < 4:
                    return
                length, at = struct.unpack("!H", self.buffer[2:4])[0], 4
            elif length == 127:
                if len(self.buffer) < 10:
                    return
                length, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
            if len(self.buffer) < at + length:
                return
            payload, self.buffer = self.buffer[at:at + length], self.buffer[at + length:]
            opcode = first & 0x0F
            if opcode == 0x1:                   # the hall sends each message in one frame
                self.messages.append(json.loads(payload))
            elif opcode == 0x8:
                self.closed = True
            elif opcode == 0x9:                 # ping: pong with the same payload
                self.sock.sendall(struct.pack("!BB", 0x8A, 0x80 | len(payload)) + b"\0\0\0\0" + payload)

    def of(self, kind: str) -> list[dict]:
        return [m for m in self.messages if m["type"] == kind]

    def close(self) -> None:
        self.sock.close()
