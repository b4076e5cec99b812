"""The built-in kinds' scorers, moving into their folders under `gate/kinds/`."""
