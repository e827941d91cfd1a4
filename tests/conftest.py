"""Suite-wide settings."""

import os

# `gpufleet check` runs checkov by default when it is installed (.venv-checkov/ in CI): each run costs
# seconds. The suite leaves it off unless a test asks for it (--checkov / --checkov-bin): tests/checkov.
os.environ.setdefault("GPUFLEET_CHECKOV_DEFAULT", "off")
