"""fdwave_client — Python client of the fdwaved simulation service (standard library only).

    from fdwave_client import FdwaveClient, FdwaveError
    c = FdwaveClient("http://127.0.0.1:8080", token=None)
    job = c.submit(spec_dict)
    for ev in c.events(job["id"]):
        print(ev.type, ev.data)
    c.download(job["id"], "gather.segy", "out/")

Also a command-line tool: python -m fdwave_client --help
"""
from .client import Event, FdwaveClient, FdwaveError

__all__ = ["FdwaveClient", "FdwaveError", "Event"]
__version__ = "0.1.0"
