"""What other contexts name of the sandbox: `sandbox_id("kind:n")`, the seed's fixed ids, which every
context's seed and every body schema's EXAMPLE use (docs/contributing.md; implemented in `sandbox.ids`), and
`add_sandbox_seeder(config, seed)`, with which a context adds what it seeds (`sandbox.seeders`)."""

from clinicrecords.sandbox.ids import sandbox_id
from clinicrecords.sandbox.seeders import add_sandbox_seeder

__all__ = ["add_sandbox_seeder", "sandbox_id"]
