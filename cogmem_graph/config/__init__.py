"""Configuration models. Every default number of the library lives in one of these
submodules and nowhere else."""
