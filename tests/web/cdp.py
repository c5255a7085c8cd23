"""cdp.py — a minimal Chrome DevTools Protocol client over a WebSocket, written with the
standard library only (socket, base64, json), so the web test needs no npm or pip
package and no network: just Debian's chromium.

    b = Browser.launch("/usr/bin/chromium", user_data_dir)
    page = b.page()                       # the first tab
    page.call("Page.navigate", url="http://127.0.0.1:8080/")
    page.eval("document.title")
    b.close()
"""
import base64
import json
import os
import re
import socket
import struct
import subprocess
import time
import urllib.request


class CdpError(Exception):
    pass


class WebSocket:
    """Client side of RFC 6455: text frames out (masked), frames in (any size)."""

    def __init__(self, url, timeout=30):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        if not m:
            raise CdpError("bad websocket url %r" % url)
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key))
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CdpError("websocket handshake: connection closed")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise CdpError("websocket handshake refused: %r" % head[:200])

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise CdpError("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text):
        data = text.encode()
        head = bytearray([0x81])
        n = len(data)
        if n < 126:
            head.append(0x80 | n)
        elif n < 65536:
            head.append(0x80 | 126)
            head += struct.pack(">H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack(">Q", n)
        mask = os.urandom(4)
        head += mask
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(bytes(head) + masked)

    def recv(self):
        """One whole message (fragments joined); answers pings."""
        message = b""
        while True:
            b0, b1 = self._read(2)
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if op == 0x8:
                raise CdpError("websocket closed by the browser")
            if op == 0x9:  # ping -> pong
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            if op in (0x1, 0x2, 0x0):
                message += payload
                if b0 & 0x80:
                    return message.decode("utf-8", errors="replace")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Page:
    """One page target: call() sends a command and waits for its answer; events that
    arrive meanwhile are kept in self.events."""

    def __init__(self, ws_url):
        self.ws = WebSocket(ws_url)
        self.next_id = 0
        self.events = []

    def call(self, method, timeout=30, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise CdpError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)
        raise CdpError("%s: no answer in %s s" % (method, timeout))

    def eval(self, expr, await_promise=False):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=await_promise)
        if "exceptionDetails" in r:
            raise CdpError("javascript error in %r: %s" % (expr[:80], r["exceptionDetails"]))
        return r.get("result", {}).get("value")

    def wait_for(self, expr, timeout, what):
        """Polls a JavaScript expression until it is truthy; returns its value. An
        exception in the expression (e.g. the page is still loading) counts as false."""
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                v = self.eval(expr)
                if v:
                    return v
            except CdpError as e:
                last_error = e
            time.sleep(0.1)
        raise CdpError("timed out after %s s waiting for %s%s" % (
            timeout, what, "; last error: %s" % last_error if last_error else ""))

    def screenshot(self, path):
        r = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))


class Browser:
    def __init__(self, proc, port):
        self.proc = proc
        self.port = port

    @classmethod
    def launch(cls, exe, user_data_dir, width=1280, height=1400):
        args = [exe, "--headless", "--remote-debugging-port=0", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage",
                "--window-size=%d,%d" % (width, height),
                "--user-data-dir=" + user_data_dir, "about:blank"]
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        # Chromium prints "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/..."
        deadline = time.monotonic() + 60
        port = None
        lines = []
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line.decode(errors="replace"))
            m = re.search(rb"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
        if port is None:
            proc.kill()
            raise CdpError("chromium did not start:\n" + "".join(lines[-20:]))
        # Keep draining stderr so chromium never blocks on a full pipe.
        import threading
        threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
        return cls(proc, port)

    def page(self):
        with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % self.port,
                                    timeout=10) as r:
            targets = json.load(r)
        for t in targets:
            if t.get("type") == "page":
                return Page(t["webSocketDebuggerUrl"])
        raise CdpError("no page target in %r" % targets)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
