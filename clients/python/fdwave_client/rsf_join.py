"""rsf_join.py — a model file as the server takes it (clients/cli/rsf_join.c does the
same). The server keeps RSF in its one-file form only (the header says in="stdin" and the
samples follow the bytes 0x0c 0x0c 0x04). A header that names a separate binary with in=
(Madagascar's usual form) is sent as the header, a line in="stdin" (a later assignment
wins in RSF), the marker and the binary, joined as they are read, so an upload sends, and
its SHA-256 covers, exactly what the server will keep. The binary is found as the engine
finds it: an absolute in=, or one relative to the header's directory."""
import os
import re

MARKER = b"\x0c\x0c\x04"
MAX_HEADER = 16 << 20


class _Joined:
    """A read-only file of bytes head followed by the file bin."""

    def __init__(self, head, binfile):
        self.head, self.pos, self.bin = head, 0, binfile

    def read(self, n=-1):
        out = self.head[self.pos:self.pos + n] if n >= 0 else self.head[self.pos:]
        self.pos += len(out)
        if n < 0:
            return out + self.bin.read()
        if len(out) < n:
            out += self.bin.read(n - len(out))
        return out

    def close(self):
        self.bin.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _plain(path):
    f = open(path, "rb")
    return f, os.fstat(f.fileno()).st_size


def _last_in(text):
    """The value of the last in= assignment (quoted or bare), or None."""
    found = None
    for m in re.finditer(r'(?:^|(?<=[ \t\n]))in=(?:"([^"]*)"|(?!")([^ \t\r\n]*))', text):
        found = m.group(1) if m.group(1) is not None else m.group(2)
    return found


def open_model(path, name):
    """(file, size) to upload path as model name (its extension says the format).
    OSError when a file cannot be read."""
    if not name.lower().endswith(".rsf"):
        return _plain(path)
    with open(path, "rb") as f:
        head = f.read(MAX_HEADER + 1)
    cut = head.find(MARKER)
    if cut >= 0 or len(head) > MAX_HEADER or b"\0" in head:
        return _plain(path)  # one file already, or no header the server would take
    text = head.decode("latin-1")
    binary = _last_in(text)
    if binary is None or binary == "stdin":
        return _plain(path)
    slash = path.rfind("/")
    if not binary.startswith("/") and slash >= 0:
        binary = path[:slash] + "/" + binary
    binfile, bsize = _plain(binary)
    joined = head + b'\n\tin="stdin"\n' + MARKER
    return _Joined(joined, binfile), len(joined) + bsize
