"""Entry point of `python -m fdwave_client`."""
import sys

from .cli import main

sys.exit(main())
