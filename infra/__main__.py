"""The gpufleet Pulumi program: the stack's ``gpufleet:fleet`` (a HybridGpuFleet) or ``gpufleet:account``
(the account baseline). The program lives in the package (gpufleet.components.program), so a project
made by ``gpufleet new`` runs the same program from the installed wheel.
"""

from gpufleet.components.program import run_fleet_program

run_fleet_program()
