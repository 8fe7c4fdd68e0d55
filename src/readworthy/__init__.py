"""readworthy: reads each pull request and says whether it is worth reading, and why."""

__version__ = "1.0.0"  # = pyproject.toml and action.yml's image tag (tests/unit/test_release.py)
