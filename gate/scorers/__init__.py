"""RAG's scorer, the last built-in kind's code still outside its folder under `gate/kinds/`."""
