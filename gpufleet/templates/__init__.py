"""Golden stack templates for `gpufleet new`: one commented stack file per kind of fleet.

The templates are package data so an installed gpufleet finds them with importlib.resources. The first
line of each is `# template: <one-line description>`; `{{ name }}` marks a value the team supplies.
"""
