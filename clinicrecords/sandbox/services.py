"""What other contexts call of the sandbox: the portal seeds a new workspace's sandbox clinic."""

from clinicrecords.sandbox import seed_sandbox

__all__ = ["seed_sandbox"]
