"""local_models.py — a job spec whose velocity model is a file on this machine
("velocity": {"type": "file", "path": P} with P an existing file here, a relative P taken
from the spec file's directory as fdwave-run takes it), for `submit`: the hint after a
refused submit, and --upload-models (upload it unless the server holds a model of that
name with the same SHA-256, then submit the spec naming the upload). The same rules and
words as the C CLI's clients/cli/local_models.c."""
import hashlib
import json
import os
import re
import sys

from . import rsf_join
from .client import FdwaveError
from .exit_codes import EXIT_BAD_REQUEST, exit_for_status

EXTENSIONS = {"segy": (".segy", ".sgy"), "rsf": (".rsf",)}
RAW_EXTENSIONS = (".f32", ".bin", ".raw")


def server_name(path, fmt):
    """The server's name for a local file: its base name in the characters model names
    may hold (others become '_', no leading '.'), with an extension of its format."""
    base = os.path.basename(path).lstrip(".")[:120]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", base)
    exts = EXTENSIONS.get(fmt, RAW_EXTENSIONS)
    dot = name.rfind(".")
    if dot >= 0 and name[dot:].lower() in exts:
        return name
    return name + exts[0]


def find(text, spec_path):
    """(path here, server name) of the local model file the spec names, or None."""
    try:
        spec = json.loads(text)
    except ValueError:
        return None
    vel = spec.get("velocity") if isinstance(spec, dict) else None
    if not isinstance(vel, dict) or vel.get("type") != "file":
        return None
    path = vel.get("path")
    if not isinstance(path, str) or not path:
        return None
    slash = spec_path.rfind("/") if spec_path != "-" else -1
    if not path.startswith("/") and slash >= 0:
        path = spec_path[:slash] + "/" + path
    if not os.path.isfile(path):
        return None
    fmt = vel.get("format")
    return path, server_name(path, fmt if isinstance(fmt, str) else None)


def hint(local):
    path, name = local
    print("hint: velocity.path names %s, a file on this machine, which the server cannot "
          "read: upload it first (`fdwave models upload %s %s`, then name it in the spec as "
          "\"velocity\": {\"type\": \"model\", \"name\": \"%s\"}), or submit with "
          "--upload-models to do both" % (path, path, name, name), file=sys.stderr)


def upload_sha256(path, name):
    """SHA-256 of what an upload of path as model name sends (rsf_join.py)."""
    h = hashlib.sha256()
    f = rsf_join.open_model(path, name)[0]
    try:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    finally:
        f.close()
    return h.hexdigest()


def upload(c, local, text, as_json, say_uploaded):
    """--upload-models: make the file available as its server name (uploading it with
    say_uploaded(answer) after, or finding it there with the same SHA-256), and return
    the spec text naming it. OSError for a file that cannot be read; FdwaveError from the
    server, after a hint when the name holds other content."""
    path, name = local
    mine = upload_sha256(path, name)
    theirs = ""
    for m in c.models_page().get("models") or []:
        if m.get("name") == name and isinstance(m.get("sha256"), str):
            theirs = m["sha256"]
    if mine == theirs:
        if not as_json:
            print("model %s is on the server already (sha256 %s)" % (name, mine),
                  file=sys.stderr)
    else:
        try:
            r = c.upload_model(path, name)
        except FdwaveError as e:
            if theirs and not as_json and exit_for_status(e.status) == EXIT_BAD_REQUEST:
                e.hint = ("hint: the server's model %s has other content (sha256 %s, this "
                          "file's %s); replace it with `fdwave models upload --replace %s %s`,"
                          " or rename the file" % (name, theirs, mine, path, name))
            raise
        say_uploaded(r)
    spec = json.loads(text)
    spec["velocity"] = {"type": "model", "name": name}
    return json.dumps(spec, separators=(",", ":"), ensure_ascii=False)
