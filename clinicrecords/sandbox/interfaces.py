"""What other contexts name of the sandbox: `sandbox_id("kind:n")`, the seed's fixed ids, which every
context's seed and every body schema's EXAMPLE use (docs/contributing.md). Implemented in `sandbox.ids`."""

from clinicrecords.sandbox.ids import sandbox_id

__all__ = ["sandbox_id"]
