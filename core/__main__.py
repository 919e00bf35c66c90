"""`python -m kubeberth` runs the command line."""

from .apps.cli import main

raise SystemExit(main())
