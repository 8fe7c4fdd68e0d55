"""readworthy: reads each pull request and says whether it is worth reading, and why."""

__version__ = "0.1.0"
