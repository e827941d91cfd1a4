"""The parts of GF-ACC-001 (`gpufleet.policies.access.no_ssh_rdp_ingress`), one module per cloud.

`entries` reads any ingress rule as `Entry` values (protocol, ports, sources) and says which of SSH
and RDP an entry opens and to which sources; `aws`, `alicloud` and `tencentcloud` read each cloud's
rule resources into entries; `templates` joins a rule to the Tencent templates and the prefix lists of
the stack it names. The policy module judges the entries and the unions of a group's rules.
"""
