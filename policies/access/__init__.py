"""access policies."""

from gpufleet.policies.access import (
    gpu_no_login_credentials,
    gpu_no_public_ip,
    gpu_session_manager,
    imdsv2_required,
    no_ssh_rdp_ingress,
    session_logs_encrypted,
)
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    no_ssh_rdp_ingress.POLICY,
    gpu_no_login_credentials.POLICY,
    gpu_session_manager.POLICY,
    imdsv2_required.POLICY,
    gpu_no_public_ip.POLICY,
    session_logs_encrypted.POLICY,
]
